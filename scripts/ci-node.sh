#!/usr/bin/env bash
# Installs, builds and runs the test suites on another Node major: `scripts/ci-node.sh 26`
# (files after the major are passed to ava, to run a part). Users run svc on every supported
# Node release, so CI proves each one with a real install, not a guess. The tracked files are
# copied to .tmp/node-<major>/project and installed there with that Node (its own
# better-sqlite3 build; npm_config_nodedir lets node-gyp find the headers offline should a
# prebuilt binary not fit), so the checkout's own install is left alone.
# The last line is `node vX.Y.Z: N passed, N failed`; the exit code is non-zero on a failure.
set -euo pipefail
major=${1:?usage: scripts/ci-node.sh <node major> [ava files...]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/.tmp/node-$major"
rm -rf "$work/project"
mkdir -p "$work/project"
nodedir=$("$root/scripts/node-from-registry.sh" "$major" "$work")
(cd "$root" && git ls-files -z | xargs -0 cp --parents -t "$work/project")

cd "$work/project"
export PATH="$nodedir/bin:$PATH" npm_config_nodedir="$nodedir"
version=$(node --version)
echo "== node $version: npm ci (installs and builds svc)"
npm ci --no-audit --no-fund
echo "== node $version: tests (ava)"
set +e
npx ava "$@" | tee "$work/ava.txt"
ava_exit=${PIPESTATUS[0]}
set -e
# Counted as scripts/ava-counts.mjs says why (ava's default reporter, not --tap).
read -r passed failed < <(node --input-type=module -e "
import { readFileSync } from 'node:fs';
import { avaCounts } from '$root/scripts/ava-counts.mjs';
const c = avaCounts(readFileSync('$work/ava.txt', 'utf8'));
console.log(c.passed, c.failed);")
# ava can exit non-zero with no failed test counted (a crashed worker): that is one failure.
if [ "$ava_exit" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "node $version: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
