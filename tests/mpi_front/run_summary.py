"""The JSON line of a `vmc mpirun --json` run (stdin), reduced to "exit time messages bytes"
and then its report lines, one a line: what the tests of timing-only and large-count runs
compare (tests/mpi_front/data_none_test.sh, tests/mpi_front/large_count_test.sh)."""
import json
import sys

lines = [l for l in sys.stdin.read().splitlines() if l.startswith("{")]
if not lines:
    print("no JSON")
    sys.exit()
j = json.loads(lines[-1])
print(j["exit"], j.get("time_s"), j.get("messages"), j.get("bytes"))
for r in j["report"]:
    print(r)
