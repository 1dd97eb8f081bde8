# Sourced by the benchmark scripts (from the repository's root): sets HERALD to the herald
# binary they measure. BENCH_HERALD=PATH names one built elsewhere (another commit, for a
# before/after in one session); otherwise the release build of this checkout, built now
# (BENCH_SCRATCH_PATH=DIR is swift build's --scratch-path).
if [ -n "${BENCH_HERALD:-}" ]; then
    # The scripts have changed to the repository's root by now: a relative path would mislead.
    case "$BENCH_HERALD" in /*) ;; *) echo "BENCH_HERALD must be an absolute path" >&2; exit 2 ;; esac
    [ -x "$BENCH_HERALD" ] || { echo "BENCH_HERALD=$BENCH_HERALD is not an executable" >&2; exit 2; }
    HERALD="$BENCH_HERALD"
else
    BUILD=(swift build -c release ${BENCH_SCRATCH_PATH:+--scratch-path "$BENCH_SCRATCH_PATH"})
    "${BUILD[@]}" --product herald >&2
    HERALD="$("${BUILD[@]}" --show-bin-path)/herald"
fi
