#!/usr/bin/env bash
# Records the allocation samples of report/1.0 and report/1.1 with JDK
# Flight Recorder: Sunburst.java as version 1.0 (a throw-away Group per
# element) and with -Dfixed=true as version 1.1. Needs a JDK 11+ (java,
# javac, jfr). Each version: 4 s, `settings=profile` (allocation samples
# throttled to 300/s), stored as `jfr print --json --stack-depth 2048`
# gzipped (jfr print keeps only 5 frames per stack unless told otherwise).
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
javac -d "$work" program/Sunburst.java
record() { # version, extra java flags
    local out="report/$1"
    mkdir -p "$out"
    java -XX:StartFlightRecording=filename="$work/$1.jfr",settings=profile ${2:-} \
        -cp "$work" Sunburst 4000
    jfr print --json --stack-depth 2048 --events jdk.ObjectAllocationSample "$work/$1.jfr" | gzip -9n > "$out/sunburst.jfr.json.gz"
}
record 1.0
record 1.1 -Dfixed=true
