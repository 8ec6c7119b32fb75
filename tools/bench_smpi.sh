#!/usr/bin/env bash
# vmc against SimGrid's SMPI on the same MPI programs: bench/peers/peer_{allreduce,bcast,
# alltoall}_loop.c, built once with SimGrid's smpicc and once with vmc's vmcc, each run as a
# whole process under `smpirun` and under `vmc mpirun`, timed from outside (wall time by the
# clock around it, peak resident memory by /usr/bin/time), every run capped by `timeout`:
# once with data (every rank checks its result) and once timing only (`vmc mpirun --data
# none` against smpirun with every buffer of the program shared, below; no rank checks). Writes the two tables to
# docs/bench-smpi.md (or $VMC_SMPI_OUT). Never part of the tests; tools/bench.sh calls it.
#
#   tools/bench_smpi.sh                                   (after tools/setup.sh)
#   VMC_SMPI_P="16 64" VMC_SMPI_LENGTHS="8 1048576" VMC_SMPI_OPS=allreduce tools/bench_smpi.sh
#
# Settings (environment):
#   VMC_SMPI_OPS       collectives (allreduce bcast alltoall)
#   VMC_SMPI_LENGTHS   bytes per message (8 512 32768 1048576); alltoall: per block
#   VMC_SMPI_P         ranks (16 64 256 1024 4096)
#   VMC_SMPI_MODES     data (with data), timing (timing only), or both (data timing)
#   VMC_SMPI_CALLS     calls timed per run, after one warm-up call (10)
#   VMC_SMPI_TIMEOUT   seconds a run may take before it is stopped (60)
#   VMC_SMPI_MAX_MIB   the largest sum of the ranks' buffers run, in MiB (4096): a
#                      configuration that needs more is listed as not run, with its need
#   VMC_SMPI_REPEATS   runs made of a configuration whose first run took under
#                      VMC_SMPI_REPEAT_UNDER seconds (3 and 1), the fastest kept
#   VMC_SMPI_VMC_OPTIONS  more options for vmc mpirun, e.g. "--coll bcast=binomial" (the
#                      algorithm SMPI's default selector runs for a 1 MiB broadcast: the same
#                      schedule on both sides, where auto picks one of 20 times the messages)
#   VMC_SMPI_SELECTOR  SMPI's collective selector (default: SMPI's own default; ompi and
#                      mpich pick Open MPI's and MPICH's algorithms, closer to vmc's in
#                      virtual time, but their first MPI_Allreduce sets up the communicator
#                      in a time that grows faster than P: 21 s at 512 ranks here)
#
# The machine model, the same on both sides: 1 us per message, 10 GB/s (beta 0.4 ns per
# float), reductions free (gamma 0), every pair of ranks one hop apart, a rank sending and
# receiving at once, messages sharing a link's bandwidth:
#   vmc mpirun -np P --topology full --port duplex --contention shared
#              --alpha 1us --beta 0.4ns --gamma 0
#   smpirun -np P -platform cluster-P.xml -hostfile hosts-P   (a flat cluster: one private
#              link per host, 0.5 us and 10 GBps each, split duplex, so a message crosses two)
#              --cfg=smpi/simulate-computation:no   (time between MPI calls is not benchmarked)
#              --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1   (no size-dependent factors)
#              --cfg=smpi/coll-selector:default   (VMC_SMPI_SELECTOR)
# smpirun's own defaults otherwise: privatization on (a copy of the program per rank, as
# vmc), eager sends below 64 KiB. vmc picks its algorithms as it does by default (auto).
#
# Timing only. vmc: `vmc mpirun --data none --shared-malloc 1` (no payload copied, no
# reduction computed, and every malloc of the program of 1 byte or more a block of one memory
# shared by all ranks: docs/mpi.md, "Shared allocations"). SMPI has no mode without payload
# for an unmodified program; its closest setting is
#   --cfg=smpi/auto-shared-malloc-thresh:1 --cfg=smpi/shared-malloc:global
# (SimGrid's docs, "Automatically share allocations" and "Factorize malloc()s"): smpicc turns
# the program's malloc into SMPI's, and every allocation of 1 byte or more is then one shared
# block of memory for all ranks (SMPI_SHARED_MALLOC without changing the source), which SMPI
# does not copy between ranks. SMPI_SHARED_MALLOC itself is a change to the source, so not
# used. Both run the programs with a third argument, nocheck (bench/peers/peer_loop.h).
set -euo pipefail
cd "$(dirname "$0")/.."

ops="${VMC_SMPI_OPS:-allreduce bcast alltoall}"
lengths="${VMC_SMPI_LENGTHS:-8 512 32768 1048576}"
ranks="${VMC_SMPI_P:-16 64 256 1024 4096}"
modes="${VMC_SMPI_MODES:-data timing}"
calls="${VMC_SMPI_CALLS:-10}"
limit="${VMC_SMPI_TIMEOUT:-60}"
max_mib="${VMC_SMPI_MAX_MIB:-4096}"
repeats="${VMC_SMPI_REPEATS:-3}"
repeat_under="${VMC_SMPI_REPEAT_UNDER:-1}"
out_md="${VMC_SMPI_OUT:-docs/bench-smpi.md}"
command_line="tools/bench_smpi.sh"
for v in VMC_SMPI_OPS VMC_SMPI_LENGTHS VMC_SMPI_P VMC_SMPI_MODES VMC_SMPI_CALLS VMC_SMPI_TIMEOUT \
         VMC_SMPI_MAX_MIB VMC_SMPI_REPEATS VMC_SMPI_REPEAT_UNDER VMC_SMPI_VMC_OPTIONS \
         VMC_SMPI_SELECTOR; do
  if [ -n "${!v:-}" ]; then command_line="$v=\"${!v}\" $command_line"; fi
done

# SimGrid and GNU time from Debian when missing, as tools/setup.sh installs its packages
# (Debian's libsimgrid-dev holds smpicc and smpirun; "simgrid" only names it there).
source tools/debian_packages.sh
install_missing_packages "tools/bench_smpi.sh" libsimgrid-dev time

cmake --build build --target vmc vmcc vmc_mpi vmc_mpi_per_rank -j "$(nproc)" > /dev/null
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for op in $ops; do
  smpicc -O2 -o "$work/${op}_smpi" "bench/peers/peer_${op}_loop.c" 2> "$work/smpicc.log" ||
    { cat "$work/smpicc.log"; exit 1; }
  ./build/vmcc -O2 -o "$work/${op}_vmc" "bench/peers/peer_${op}_loop.c"
done

platform() {  # P: a flat cluster of P hosts and its hostfile
  {
    echo "<?xml version='1.0'?>"
    echo '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">'
    echo '<platform version="4.1">'
    echo "  <cluster id=\"vmc\" prefix=\"node-\" suffix=\"\" radical=\"0-$(($1 - 1))\" speed=\"1Gf\""
    echo '           bw="10GBps" lat="0.5us" sharing_policy="SPLITDUPLEX"/>'
    echo '</platform>'
  } > "$work/cluster-$1.xml"
  for ((i = 0; i < $1; ++i)); do echo "node-$i"; done > "$work/hosts-$1"
}

vmc_model=(--topology full --port duplex --contention shared --alpha 1us --beta 0.4ns --gamma 0)
read -r -a vmc_more <<< "${VMC_SMPI_VMC_OPTIONS:-}"
vmc_model+=("${vmc_more[@]}")
smpi_cfg=(--cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1
          "--cfg=smpi/coll-selector:${VMC_SMPI_SELECTOR:-default}")
vmc_timing=(--data none --shared-malloc 1)
smpi_timing=(--cfg=smpi/auto-shared-malloc-thresh:1 --cfg=smpi/shared-malloc:global)

# run_once TOOL MODE OP BYTES P: one whole process (MODE data or timing); prints "wall_s
# peak_kib virtual_us" or "timeout" or "failed: the last line of its output". The wall time
# is read from the clock around the process, to the millisecond (/usr/bin/time's %e has
# hundredths: the small rows of both tools take 0.01-0.1 s), its peak memory from
# /usr/bin/time.
run_once() {
  local tool="$1" mode="$2" op="$3" bytes="$4" p="$5" log="$work/run.log" rc=0 t0 t1
  local extra=() check=()
  if [ "$mode" = timing ]; then
    check=(nocheck)
    if [ "$tool" = smpi ]; then extra=("${smpi_timing[@]}"); else extra=("${vmc_timing[@]}"); fi
  fi
  t0="$(date +%s%N)"
  if [ "$tool" = smpi ]; then
    timeout -k 10 "$limit" /usr/bin/time -f '%M' -o "$work/time" \
      smpirun -np "$p" -platform "$work/cluster-$p.xml" -hostfile "$work/hosts-$p" \
      "${smpi_cfg[@]}" "${extra[@]}" "$work/${op}_smpi" "$bytes" "$calls" "${check[@]}" \
      > "$log" 2>&1 || rc=$?
  else
    timeout -k 10 "$limit" /usr/bin/time -f '%M' -o "$work/time" \
      ./build/vmc mpirun -np "$p" "${vmc_model[@]}" "${extra[@]}" \
      "$work/${op}_vmc" "$bytes" "$calls" "${check[@]}" > "$log" 2>&1 || rc=$?
  fi
  t1="$(date +%s%N)"
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo timeout
  elif [ "$rc" -ne 0 ]; then
    echo "failed: exit $rc: $(grep -v '\[xbt_cfg/INFO\]\|smpi_config/INFO' "$log" | tail -1 | cut -c1-160)"
  else
    echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }') $(tail -1 "$work/time") $(awk '/^virtual_us_per_call/ { print $2 }' "$log")"
  fi
}

# measure TOOL MODE OP BYTES P: run_once's line; a run under VMC_SMPI_REPEAT_UNDER seconds
# is made VMC_SMPI_REPEATS times in all and its fastest kept (a short run's time is mostly the
# host's moment: page cache, the other core's work).
measure() {
  local first best again n
  first="$(run_once "$@")"
  best="$first"
  if [[ "$first" =~ ^[0-9] ]] &&
     awk -v w="${first%% *}" -v u="$repeat_under" 'BEGIN { exit !(w < u) }'; then
    for ((n = 1; n < repeats; ++n)); do
      again="$(run_once "$@")"
      if [[ "$again" =~ ^[0-9] ]] &&
         awk -v a="${again%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
        best="$again"
      fi
    done
  fi
  echo "$best"
}

human() {  # bytes: 8 B, 32 KiB, 1 MiB
  awk -v b="$1" 'BEGIN { if (b >= 1048576) printf "%g MiB", b / 1048576;
                         else if (b >= 1024) printf "%g KiB", b / 1024; else printf "%d B", b }'
}
cell() {  # a measurement's cell: wall time and memory, or what happened
  case "$1" in
    timeout) echo "did not finish in $limit s" ;;
    failed*|"not run"*) echo "$1" ;;
    *) awk -v w="${1%% *}" -v k="$(echo "$1" | cut -d' ' -f2)" \
         'BEGIN { printf (w < 1 ? "%.3f s, %.0f MiB" : "%.2f s, %.0f MiB"), w, k / 1024 }' ;;
  esac
}

# table MODE: the page's table of one mode, from its rows so far.
table() {
  local rows_file="$work/rows-$1"
  if [ "$1" = data ]; then
    echo "### With data"
    echo
    echo "\`vmc mpirun\` against \`smpirun\` as above; every rank checks its result."
  else
    echo "### Timing only"
    echo
    echo "\`vmc mpirun ${vmc_timing[*]}\` against \`smpirun ${smpi_timing[*]}\` (above), every"
    echo "program given \`nocheck\`. *Virtual per call* is vmc's timing-only time, its time with data"
    echo "(the table above, when it ran) and SMPI's: vmc's first two are equal by construction."
  fi
  echo
  echo "| op | length | P | vmc mpirun | smpirun | wall SMPI/vmc | memory SMPI/vmc | virtual per call |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  if [ -s "$rows_file" ]; then cat "$rows_file"; fi
  echo
}

# write_page: the page from the rows so far (after each row, so that a stopped run leaves
# what it measured).
write_page() {
  local elapsed=$(( $(date -u +%s) - started )) load_end
  load_end="$(cut -d' ' -f1-3 /proc/loadavg)"
  {
    echo "# vmc against SimGrid's SMPI on the same MPI programs"
    echo
    echo "Written by \`$command_line\` on $(nproc) cores ($(uname -m)), $(date -u +%Y-%m-%d),"
    echo "$(smpirun --version 2>/dev/null | head -1 | sed 's/SimGrid version/SimGrid/'), in $elapsed s; load average"
    echo "$load_start at the start and $load_end at the end (whatever else ran on the machine,"
    echo "the ratios, each of two runs made one after the other, are the figures to read)."
    echo
    echo "Each row is one program (bench/peers/peer_*_loop.c, OP in the name: a warm-up call, then $calls calls"
    echo "of OP on floats, BYTES per message, per block for alltoall) at P ranks, built with"
    echo "\`smpicc\` and with \`vmcc\` from the same source, run as a whole process by \`smpirun\`"
    echo "and by \`vmc mpirun\`, its wall time read from the clock around it (to the millisecond)"
    echo "and its peak resident memory by \`/usr/bin/time -f %M\`; a configuration whose first run"
    echo "took under $repeat_under s is run $repeats times and its fastest kept. Each run is"
    echo "stopped after $limit s. A ratio is SMPI's over vmc's: above 1, vmc is"
    echo "faster or smaller. *Virtual per call* is each tool's simulated time per call on rank 0:"
    echo "the same machine, but each tool picks its own algorithms (vmc \`auto\`, SMPI its"
    echo "selector), so they differ where those do. After a run that did not finish or failed,"
    echo "the same row is not run at larger P."
    echo
    echo "The machine model, the same on both sides (tools/bench_smpi.sh says why):"
    echo
    echo "    vmc mpirun -np P ${vmc_model[*]} PROGRAM BYTES $calls"
    echo "    smpirun -np P -platform cluster-P.xml -hostfile hosts-P ${smpi_cfg[*]} PROGRAM BYTES $calls"
    echo
    echo "cluster-P.xml: \`<cluster radical=\"0-(P-1)\" speed=\"1Gf\" bw=\"10GBps\" lat=\"0.5us\""
    echo "sharing_policy=\"SPLITDUPLEX\"/>\` (a message crosses two private links: 1 us, 10 GB/s)."
    echo
    echo "Timing only: vmc's \`${vmc_timing[*]}\` copies no payload, computes no reduction, and"
    echo "gives every malloc of the program of 1 byte or more a block of one memory shared by all"
    echo "ranks ([mpi.md](mpi.md#shared-allocations---shared-malloc-bytes)). SMPI has no mode"
    echo "without payload for an unmodified program; its closest is \`${smpi_timing[*]}\`:"
    echo "smpicc turns the program's malloc into SMPI's, and every allocation of 1 byte or more"
    echo "becomes one block of memory shared by all ranks (\`SMPI_SHARED_MALLOC\` without changing"
    echo "the source), which SMPI does not copy between ranks; reductions are still computed."
    echo "\`SMPI_SHARED_MALLOC\` itself needs the source changed, so it is not used. Peak resident"
    echo "memory counts a shared page once in every block that maps it, on both sides."
    echo
    local each
    for each in $modes; do table "$each"; done
  } > "$out_md"
}

load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
started="$(date -u +%s)"
for mode in $modes; do : > "$work/rows-$mode"; done
# the virtual time per call of vmc's run with data, by "op bytes p", for the timing table
declare -A vmc_virtual
for mode in $modes; do
  rows="$work/rows-$mode"
  for op in $ops; do
    for bytes in $lengths; do
      smpi_stop="" vmc_stop=""
      for p in $ranks; do
        blocks=1
        if [ "$op" = alltoall ]; then blocks="$p"; fi
        need_mib=$(( 2 * bytes * blocks * p / 1048576 ))
        label="| $op | $(human "$bytes") | $p"
        # Timing only, both tools' buffers share one memory: what they cost is the mappings
        # (a page table entry for every page of every rank's buffers) and filling them.
        if [ "$mode" = timing ]; then need_mib=$(( need_mib / 16 )); fi
        if [ "$need_mib" -gt "$max_mib" ]; then
          echo "$label | not run: the ranks' buffers take $need_mib MiB (> VMC_SMPI_MAX_MIB) | | | | |" >> "$rows"
          write_page
          continue
        fi
        platform "$p"
        v="${vmc_stop:-$(measure vmc "$mode" "$op" "$bytes" "$p")}"
        s="${smpi_stop:-$(measure smpi "$mode" "$op" "$bytes" "$p")}"
        echo "$mode $op $bytes $p vmc: $v | smpi: $s"
        case "$v" in [0-9]*) ;; *) vmc_stop="${vmc_stop:-not run: ended badly at P = $p}" ;; esac
        case "$s" in [0-9]*) ;; *) smpi_stop="${smpi_stop:-not run: ended badly at P = $p}" ;; esac
        wall_ratio="" memory_ratio="" virtual=""
        if [[ "$v" =~ ^[0-9] ]]; then
          read -r vw vk vv <<< "$v"
          if [ "$mode" = data ]; then vmc_virtual["$op $bytes $p"]="$vv"; fi
        fi
        if [[ "$v" =~ ^[0-9] && "$s" =~ ^[0-9] ]]; then
          read -r sw sk sv <<< "$s"
          wall_ratio="$(awk -v v="$vw" -v s="$sw" 'BEGIN { r = s / (v > 0.001 ? v : 0.001); printf (r < 0.1 ? "%.2fx" : "%.1fx"), r }')"
          memory_ratio="$(awk -v v="$vk" -v s="$sk" 'BEGIN { printf "%.2fx", s / v }')"
          if [ "$mode" = data ]; then
            virtual="$vv / $sv us"
          else
            virtual="$vv / ${vmc_virtual["$op $bytes $p"]:--} / $sv us"
          fi
        fi
        echo "$label | $(cell "$v") | $(cell "$s") | $wall_ratio | $memory_ratio | $virtual |" >> "$rows"
        write_page
      done
    done
  done
done
write_page
echo "wrote $out_md"
