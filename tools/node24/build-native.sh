#!/usr/bin/env bash
# Native modules for Node 24 that the test suite loads and whose packages ship no Node 24 binary,
# built from source against Node 24's headers (include/node in the node-<os>-<arch> package that
# tools/node24 pins: npm_config_nodedir) with the node-gyp that npm bundles. Nothing downloaded.
#   - better-sqlite3 13 needs nothing: its npm tarball carries Node-API binaries, one for every Node
#     >= 22 (better-sqlite3-node20, built at `npm ci`, serves Node 20 only).
#   - @cdktf/node-pty-prebuilt-multiarch (loaded by cdktf-cli in the e2e tests) ships binaries up to
#     Node 22's ABI: the Node 24 one is built and put beside them as prebuilds/<os>-<arch>/node.abi<N>.node,
#     the name its loader looks for, so Node 20's binary stays the one Node 20 loads.
# Idempotent: a binary already in place is kept. Run after `npm ci` and `npm ci --prefix tools/node24`.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
platform="$(node -p 'process.platform')-$(node -p 'process.arch')"
nodedir="$root/tools/node24/node_modules/node-$platform"
node24="$nodedir/bin/node"
if [ ! -x "$node24" ]; then
  echo "no Node 24 in $nodedir: run npm ci --prefix tools/node24" >&2
  exit 1
fi
gyp="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")/node_modules/node-gyp/bin/node-gyp.js"
abi="$("$node24" -p process.versions.modules)"

pty="$root/node_modules/@cdktf/node-pty-prebuilt-multiarch"
target="$pty/prebuilds/$platform/node.abi$abi.node"
if [ -d "$pty" ] && [ ! -f "$target" ]; then
  echo "building node-pty for Node $("$node24" --version) (ABI $abi)"
  # binding.gyp runs `node -e "require('nan')"`: Node 24 first on PATH, so every step sees one Node.
  log="$(mktemp)"
  if ! (cd "$pty" && PATH="$nodedir/bin:$PATH" npm_config_nodedir="$nodedir" "$node24" "$gyp" rebuild --release --nodedir="$nodedir") >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
  fi
  rm -f "$log"
  mkdir -p "$(dirname "$target")"
  mv "$pty/build/Release/pty.node" "$target"
  # Node 20 would load build/Release before its own prebuilt binary.
  rm -rf "$pty/build"
fi
echo "Node 24 native modules: ready ($("$node24" --version))"
