// Errors the constructs throw while the app synthesizes are the user's to fix, not keyward's to
// debug: the uncaught error prints its message without the 20 frames of the app's and cdktf's
// internals (KEYWARD_DEBUG=1 keeps them).

/** `e` with its stack reduced to "Name: message" (and its fields left out of Node's print) unless KEYWARD_DEBUG asks for the frames. */
export function synthError<E extends Error>(e: E, env: NodeJS.ProcessEnv = process.env): E {
  const debug = (env.KEYWARD_DEBUG ?? '').trim().toLowerCase();
  if (debug !== '' && debug !== '0' && debug !== 'false') return e;
  e.stack = `${e.name}: ${e.message}`;
  // Node prints an uncaught error's own enumerable fields after it (problems repeats the message).
  for (const key of Object.keys(e)) Object.defineProperty(e, key, { enumerable: false });
  return e;
}
