# Stages of a long run, each timed and, when it fails, summarized: sourced by scripts/test (and by
# scripts/check-failure-summary, which checks it), not run.
#
#   stage NAME COMMAND...    runs COMMAND (a program or a shell function), its output shown and kept;
#                            ends with `=== stage NAME: N s ===`. When it fails: the table of stage
#                            times so far, `=== failed: NAME (exit N) ===`, the stage's failures with
#                            their causes, and the script exits with the stage's status.
#   stage_times              the table of every stage's wall time, and the total
#
# A failed stage's failures, by its NAME:
#   build*, check-install, unit, interop, tests, tsan   scripts/failure-summary (`swift test`'s failures
#                                          with their causes, compiler errors) and ThreadSanitizer's reports
#   web                                    node --test's `not ok` lines with their diagnostics
#   any other, or when those find nothing  the stage's last 40 lines
# The summary comes last, after every line the stage printed: it is what the end of a CI page shows.

stage_names=()
stage_seconds=()

stage() {
    local name="$1" log status started seconds
    shift
    log="$(mktemp)"
    started=$SECONDS
    echo "=== stage $name ($*) ==="
    set +e
    # Line-buffered, so what a test prints appears where it happened; a shell function runs as it is
    # (it line-buffers what it runs itself). set -e holds inside the stage as outside.
    (
        set -e
        if [ "$(type -t "$1")" = function ]; then "$@"; else stdbuf -oL -eL "$@"; fi
    ) 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
    set -e
    seconds=$((SECONDS - started))
    stage_names+=("$name")
    stage_seconds+=("$seconds")
    echo "=== stage $name: $seconds s ==="
    if [ "$status" -ne 0 ]; then
        echo
        stage_times
        echo
        echo "=== failed: $name (exit $status) ==="
        stage_failures "$name" "$log"
        rm -f "$log"
        exit "$status"
    fi
    rm -f "$log"
}

stage_times() {
    local i total=0
    echo "=== stage times ==="
    for i in "${!stage_names[@]}"; do
        printf '%-24s %6d s\n' "${stage_names[$i]}" "${stage_seconds[$i]}"
        total=$((total + stage_seconds[i]))
    done
    printf '%-24s %6d s\n' total "$total"
}

# Prints the failures in a failed stage's log (see above).
stage_failures() {
    local name="$1" log="$2" failures=""
    case "$name" in
        build* | check-install | unit | interop | tests | tsan)
            failures="$(
                "$(dirname "${BASH_SOURCE[0]}")/failure-summary" "$log" || true
                grep -A12 '^WARNING: ThreadSanitizer' "$log" | head -120 || true
            )"
            ;;
        web) failures="$(node_test_failures "$log")" ;;
    esac
    if [ -n "$failures" ]; then echo "$failures"; else tail -40 "$log"; fi
}

# node --test's TAP: each `not ok` line with its YAML block (the error, expected and actual values,
# the location), its stack trace left out.
node_test_failures() {
    awk '
        /^[[:space:]]*not ok / { print; match($0, /^ */); indent = RLENGTH; block = 1; stack = 0; next }
        !block { next }
        { match($0, /^ */) }
        /^ *\.\.\.$/ && RLENGTH == indent + 2 { block = 0; next }
        /^ *stack: / { stack = RLENGTH; next }
        stack && (RLENGTH > stack || /^ *$/) { next }
        { stack = 0 }
        /^ *(---|duration_ms:)/ { next }
        { print }
    ' "$1" | head -200
}
