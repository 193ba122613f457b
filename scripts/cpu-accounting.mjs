// The CPU seconds a command's whole process tree used, detached daemons included (Linux /proc).
//
// A process's own figures (user + system) reach its parent when the parent waits for it: after
// the gate's children are done, the gate's "children" times (/proc/self/stat cutime + cstime)
// hold everything that was waited for, down the tree (ava, its workers, the CLI calls, Chromium,
// the lint and typecheck steps). A daemon the CLI starts detached is not: its parent exits first,
// the daemon is re-parented to init, and its time goes nowhere we can read after it ends. So the
// children get a marker in their environment (inherited by every descendant, detached or not;
// the tests' svcEnv keeps it, as it drops only SVC_* variables), and a sampler reads /proc every
// two seconds: a marked process whose parent is neither marked nor the gate is such an orphan,
// and its last figures seen (its own times and those of the children it waited for) are added.
// What an orphan spends in its last two seconds is missed: a daemon's stop, a small part.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { clearInterval, setInterval } from 'node:timers';

/** /proc's clock ticks (USER_HZ): 100 on every Linux that Node runs on. */
const TICKS_PER_SECOND = 100;
const SAMPLE_MS = 2_000;
const MARKER_NAME = 'GATE_CPU_ACCOUNTING';

/**
 * Fields of /proc/<pid>/stat after the command name: [0] state, [1] ppid, [11] utime, [12] stime,
 * [13] cutime, [14] cstime (in ticks), [19] start time.
 */
function statFields(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // gone, or not readable
  }
}

const ticks = (fields, from, to) =>
  fields.slice(from, to + 1).reduce((sum, value) => sum + Number(value), 0);

/** This process's own CPU seconds and those of the children it has waited for. */
export function ownAndWaitedSeconds() {
  const fields = statFields('self');
  if (!fields) {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1e6;
  }
  return ticks(fields, 11, 14) / TICKS_PER_SECOND;
}

/**
 * Starts sampling; returns the environment to give the children and `stop()`, which resolves
 * the CPU seconds of the whole tree so far (call it once every child has exited). Where /proc is
 * missing (not Linux), `available` is false and only what was waited for is counted.
 */
export function startCpuAccounting() {
  const marker = randomBytes(8).toString('hex');
  const needle = `${MARKER_NAME}=${marker}`;
  const available = statFields('self') !== undefined;
  /** pid -> whether it carries the marker, for the processes seen (and still there). */
  const marked = new Map();
  /** pid:start time -> the last CPU seconds seen, for marked orphans. */
  const orphans = new Map();
  const isMarked = (pid) => {
    let known = marked.get(pid);
    if (known === undefined) {
      try {
        known = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(needle);
      } catch {
        known = false;
      }
      marked.set(pid, known);
    }
    return known;
  };
  const sample = () => {
    let listed;
    try {
      listed = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
    } catch {
      return;
    }
    const present = new Set(listed);
    for (const pid of marked.keys()) if (!present.has(pid)) marked.delete(pid);
    for (const pid of listed) {
      if (!isMarked(pid)) continue;
      const fields = statFields(pid);
      if (!fields) continue;
      const key = `${pid}:${fields[19]}`;
      const parent = fields[1];
      if (orphans.has(key) || (parent !== String(process.pid) && !isMarked(parent))) {
        orphans.set(key, ticks(fields, 11, 14) / TICKS_PER_SECOND);
      }
    }
  };
  const timer = available ? setInterval(sample, SAMPLE_MS) : undefined;
  timer?.unref();
  return {
    available,
    env: { [MARKER_NAME]: marker },
    stop() {
      if (timer) {
        sample();
        clearInterval(timer);
      }
      let detached = 0;
      for (const seconds of orphans.values()) detached += seconds;
      return { total: ownAndWaitedSeconds() + detached, detached, orphans: orphans.size };
    },
  };
}
