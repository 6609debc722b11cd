#!/usr/bin/env bash
# The site scripts (slurm/mps_prolog.sh, mps_task_prolog.sh, mps_epilog.sh) as
# Slurm runs them, on a real one-node Slurm with the MPS double (no GPU here):
# a job with --gres=mps gets daemons in a session folder its user owns and its
# tasks the export lines; the epilog leaves nothing; a job that does not ask
# gets nothing. The cluster's Prolog, TaskProlog and Epilog are small wrappers
# that give the scripts the double and the fake GPU, as a site sets
# MPSFW_MPSCTL and PATH at the scripts' top.
#   tests/slurm/test_slurm_site_mps.sh REPO BUILD_DIR WORKDIR PYTHON
# shellcheck source=slurm_test_lib.sh
source "$(dirname "$0")/slurm_test_lib.sh" "$@"
# shellcheck source=../mps/fake_gpu_lib.sh
source "$repo/tests/mps/fake_gpu_lib.sh"
[ -x "$build/apps/mpsctl" ] || { echo "SKIP: $build/apps/mpsctl not built"; exit 77; }

mkdir -p "$work/root" "$work/hooks"
chmod 1777 "$work/root"
# The hooks' PATH is a site's short one: the double, then /usr/bin:/bin.
PATH=/usr/bin:/bin fake_mps_env "$work" "$python" || exit 1
fake_gpus "$work" 1 || exit 1
record=$work/record
for hook in prolog task_prolog epilog; do
  cat > "$work/hooks/$hook.sh" <<HOOK
#!/bin/bash
export ${FAKE_MPS_ENV[*]@Q}
export MPSFW_MPSCTL=$build/apps/mpsctl MPSFW_MPS_ROOT=$work/root
env | grep -E '^(SLURM_JOB_|CUDA_)' | sort > $work/hooks/$hook.env
exec $repo/slurm/mps_$hook.sh
HOOK
  chmod +x "$work/hooks/$hook.sh"
done

cluster_up
export SLURM_CONF=$cluster/slurm.conf
printf 'Prolog=%s\nTaskProlog=%s\nEpilog=%s\n' "$work/hooks/prolog.sh" \
  "$work/hooks/task_prolog.sh" "$work/hooks/epilog.sh" >> "$SLURM_CONF"
scontrol reconfigure || fail "scontrol reconfigure"
sleep 2
cd "$work" || exit 1

sessions() { find "$work/root" -mindepth 1 -maxdepth 1 -name 'mpsfw-mps-*' 2>/dev/null; }
# What a task of a job sees, and the session folder's owner while it runs.
task='echo "session=${MPSFW_MPS_SESSION:-} pipe=${CUDA_MPS_PIPE_DIRECTORY:-}";
      [ -n "${MPSFW_MPS_SESSION:-}" ] && stat -c "owner=%U" "$MPSFW_MPS_SESSION"; true'

# 1. A job that asks (--gres=mps:25).
timeout 60 srun -n 1 --gres=mps:25 bash -c "$task" > asks.out 2>&1 || fail "srun --gres=mps:25: $(tail -3 asks.out)"
session=$(sed -n 's/^session=\([^ ]*\) .*/\1/p' asks.out)
if [[ $session == "$work/root/mpsfw-mps-"* ]] && grep -q "pipe=$session/gpu0/pipe" asks.out &&
   grep -q "^owner=$(id -un)$" asks.out; then
  pass "--gres=mps:25: the task is on the job's session ($session), its user's, pipe exported"
else
  fail "--gres=mps:25: the task saw: $(cat asks.out); the prolog's environment: $(cat "$work/hooks/prolog.env" 2>/dev/null | tr '\n' ' ')"
fi
for _ in $(seq 1 100); do [ -z "$(sessions)" ] && break; sleep 0.1; done
if [ -z "$(sessions)" ] && grep -q " daemon-exit .*reason=quit" "$record" 2>/dev/null; then
  pass "the epilog stopped the job's daemon ('quit') and removed its folder"
else
  fail "after the job: folders $(sessions | tr '\n' ' '); daemon exits: $(grep -c daemon-exit "$record" 2>/dev/null)"
fi

# 2. A job that does not ask.
spawned=$(grep -c " daemon-spawn " "$record" 2>/dev/null)
timeout 60 srun -n 1 bash -c "$task" > plain.out 2>&1 || fail "srun: $(tail -3 plain.out)"
if grep -q "^session= pipe=$" plain.out && [ "$(grep -c " daemon-spawn " "$record")" = "$spawned" ]; then
  pass "a job without --gres=mps: no daemon, nothing exported"
else
  fail "a job without --gres=mps saw: $(cat plain.out)"
fi

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
