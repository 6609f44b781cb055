#!/bin/sh
# posture-ci.sh: the posture survey for any CI system (docs/ci.md). Uploads the SBOMs or CBOMs named
# (one directory, or files) as a survey with the upload pass in POSTURE_PASS, waits for it, and writes
# into POSTURE_OUT (default ./posture-out): posture.sarif (SARIF 2.1.0), posture-junit.xml (JUnit XML)
# and posture-summary.md (the same markdown every CI system gets), then prints the summary. Exits with
# the CLI's code: 0 passed, 1 the survey or the upload failed, 2 a usage error, 3 POSTURE_FAIL_ON tripped.
#
#   POSTURE_API=https://api.posture.example POSTURE_PASS=... POSTURE_TARGET=payments-api \
#   POSTURE_FAIL_ON=new-red,critical sh integrations/shell/posture-ci.sh build/sbom.cdx.json
#
# Environment: POSTURE_API, POSTURE_PASS (required); POSTURE_PROJECT, POSTURE_TARGET, POSTURE_TAG,
# POSTURE_FAIL_ON, POSTURE_OUT, POSTURE_TIMEOUT (seconds). Needs node 20 or later.
set -eu

if [ "$#" -eq 0 ]; then
  echo "usage: posture-ci.sh PATH... (SBOMs, CBOMs or one directory)" >&2
  exit 2
fi
: "${POSTURE_API:?set POSTURE_API to the service's address}"
: "${POSTURE_PASS:?set POSTURE_PASS to an upload pass (from the CI's secrets)}"

here=$(cd "$(dirname "$0")" && pwd)
out=${POSTURE_OUT:-posture-out}
mkdir -p "$out"
# Nothing of an earlier run may pass for this one's.
rm -f "$out/posture-summary.md" "$out/posture.sarif" "$out/posture-junit.xml"

# This checkout's CLI; its few dependencies are installed on the side when missing.
cli=$(node "$here/../lib/cli.mjs")

# Several files go as one bundle: the CLI packs a directory's *.json files.
if [ "$#" -gt 1 ]; then
  bundle=$(mktemp -d "${TMPDIR:-/tmp}/posture-bundle-XXXXXX")
  n=0
  for f in "$@"; do
    n=$((n + 1))
    cp "$f" "$bundle/$n-$(basename "$f")"
  done
  set -- "$bundle"
fi

set -- upload "$1" --summary-md "$out/posture-summary.md" --sarif "$out/posture.sarif" --junit "$out/posture-junit.xml"
[ -n "${POSTURE_PROJECT:-}" ] && set -- "$@" --project "$POSTURE_PROJECT"
[ -n "${POSTURE_TARGET:-}" ] && set -- "$@" --target "$POSTURE_TARGET"
[ -n "${POSTURE_TAG:-}" ] && set -- "$@" --tag "$POSTURE_TAG"
[ -n "${POSTURE_FAIL_ON:-}" ] && set -- "$@" --fail-on "$POSTURE_FAIL_ON"
[ -n "${POSTURE_TIMEOUT:-}" ] && set -- "$@" --timeout "$POSTURE_TIMEOUT"

# The pass stays in the environment (POSTURE_PASS), never on the command line.
code=0
node "$cli" "$@" || code=$?
if [ -f "$out/posture-summary.md" ]; then
  echo
  cat "$out/posture-summary.md"
fi
exit "$code"
