#!/bin/sh
# Appends one line per start to /mnt/data/start-lines (the node's data volume), so that a test can count how
# often each run started; then writes an output that names the run. An input `sleep N` makes it run N seconds
# first (N: digits only); any other input is ignored.
set -eu
run="${INPUT_FILE%/input}"
run="${run##*/}"
echo "start $run" >> /mnt/data/start-lines
echo "started $run"
case "$(head -c 16 "$INPUT_FILE")" in
  "sleep "[0-9]*) sleep "$(head -c 16 "$INPUT_FILE" | cut -c7- | tr -cd '0-9')" ;;
esac
printf 'json.{"ran": "%s"}' "$run" > "$OUTPUT_FILE"
echo "finished $run"
