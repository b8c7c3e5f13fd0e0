// The better-sqlite3 this Node loads. better-sqlite3 12's destructors abort Node 24 when they run
// after a worker thread's environment is gone (`(env) != nullptr` in RemoveEnvironmentCleanupHook);
// 13 is built on Node-API and fixes that, but needs Node >= 22. So Node >= 22 loads 13 (the
// package `better-sqlite3`, a Node-API build shipped in its npm tarball) and Node 20 loads 12 (the
// alias `better-sqlite3-node20`, an optional dependency built from source at install). Both have
// the same API and types; drop the alias with Node 20.

import type BetterSqlite3 from 'better-sqlite3';

/** The running Node's major version. */
export const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** The package this process loads. */
export const SQLITE_PACKAGE = NODE_MAJOR >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';

function load(): typeof BetterSqlite3 {
  try {
    // A require chosen at run time: a static import would load 13 on Node 20, which crashes there.
    return require(SQLITE_PACKAGE) as typeof BetterSqlite3;
  } catch (e) {
    // The Node 20 alias is an optional dependency (its native build must not fail installs on
    // Node >= 22, which never load it): say what is missing rather than a bare module error.
    throw new Error(
      `keyward's SQLite storage needs ${SQLITE_PACKAGE} on Node ${process.versions.node}, and it did not load (${(e as Error).message}): reinstall with npm ci on this Node`,
    );
  }
}

const Database: typeof BetterSqlite3 = load();

// eslint-disable-next-line @typescript-eslint/no-namespace
declare namespace Database {
  type Database = BetterSqlite3.Database;
  type Statement<P extends unknown[] | object = unknown[], R = unknown> = BetterSqlite3.Statement<P, R>;
  type Options = BetterSqlite3.Options;
}

export default Database;
