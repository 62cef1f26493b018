#!/bin/sh
# Issue 14's show-stopper: tests/data/long-run.yaml (3000 Hertz beads, t_end
# 10 ms) aborted at t = 1.76 ms with CV_ILL_INPUT at the default settings. It
# runs to the end now: exit 0, status complete, end time reached, and the pulse
# makes at most 4 events per contact (wake contacts behind it are quiet).
set -u
CRADLE=$1
DATA=$2
. "$(dirname "$0")/shell-lib.sh"
"$CRADLE" run -o long.h5 "$DATA/long-run.yaml" > run.txt 2>&1; st=$?
[ $st -eq 0 ] && grep -q "integrated 0 -> 0.01 s (end time reached)" run.txt \
    && ok "3000 beads to t_end = 10 ms at the default settings" || bad "long run: status $st, $(cat run.txt)"
h5dump -a /status long.h5 2>/dev/null | grep -q '"complete"' && ok "status complete" || bad "status"
events=$(sed -n 's/.* \([0-9]*\) events,.*/\1/p' run.txt)
[ -n "$events" ] && [ "$events" -le $((4 * 2999)) ] && ok "$events events for 2999 contacts (at most 4 each)" \
    || bad "events: $events"
finish test-long-run
