/**
 * A CI job's one change through `zipfs exec` (issue 30, point 3): the whole job (open, the command writing one
 * entry's file, sync, close), eager, --lazy and --only, against `zip -u` updating the same entry from a file. Each
 * round changes the entry anew; no backup is kept (zip -u keeps none).
 */
import fs from 'node:fs';
import path from 'node:path';
import { report } from './report.ts';
import { runOnce, runRounds, type Contender, type Measured } from './rounds.ts';

export interface ExecBench {
  binary: string;
  scratch: string;
  rounds: number;
  archive: string;
  /** The entry changed, a file of the archive. */
  member: string;
  label: string;
  /** Run the eager exec once, after the rounds (it extracts every entry: seconds at 100,000). */
  eagerOnce: boolean;
}

/** The command exec runs: a new content at the entry's path, its folders made (a lazy folder has none yet). */
const WRITE = 'mkdir -p "$(dirname "$1")" && date +%s%N > "$1"';

export function execEditReport(o: ExecBench): string {
  let copies = 0;
  const zipFor = () => {
    const zip = path.join(o.scratch, `exec-${path.basename(o.archive, '.zip')}-${copies++}.zip`);
    fs.copyFileSync(o.archive, zip); // changed every round: never the cached archive
    return zip;
  };
  const env = { ...process.env, ZIPFS_HOME: path.join(o.scratch, `exec-home-${path.basename(o.archive)}`) };
  const exec = (name: string, flags: string[]): Contender => ({
    name,
    command: [o.binary, 'exec', '-q', '--no-backup', ...flags, zipFor(), '--', 'sh', '-c', WRITE, 'sh', o.member],
    env,
  });
  const infoZipDir = path.join(o.scratch, `exec-infozip-${path.basename(o.archive)}`);
  fs.mkdirSync(path.join(infoZipDir, path.dirname(o.member)), { recursive: true });
  let round = 0;
  const zipUpdate: Contender = {
    name: 'zip -u (Info-ZIP)',
    reference: true,
    prepare: () => {
      const file = path.join(infoZipDir, o.member);
      fs.writeFileSync(file, `changed in round ${++round}\n`);
      // zip -u replaces only entries older than the file, at DOS-time (2 s) resolution: step well ahead.
      const later = new Date(Date.now() + round * 10_000);
      fs.utimesSync(file, later, later);
    },
    command: ['zip', '-q', '-u', zipFor(), o.member],
    cwd: infoZipDir,
  };
  const eager = exec('zipfs exec (eager: everything extracted)', []);
  const measured: Measured[] = runRounds(
    [
      zipUpdate,
      exec('zipfs exec --lazy', ['--lazy']),
      exec(`zipfs exec --only ${o.member}`, ['--only', o.member]),
      ...(o.eagerOnce ? [] : [eager]),
    ],
    o.rounds,
  );
  const rows = [...measured];
  let note = '';
  if (o.eagerOnce) {
    // Its one run against the median of zip -u's: the ratio column is against the reference's first round.
    rows.push(runOnce(eager));
    note = '\nThe eager exec ran once (it extracts every entry): its ratio is against the first round of zip -u.\n';
  }
  const size = fs.statSync(o.archive).size;
  return `${report(`exec of a one-file change: ${o.label}, against zip -u`, rows, size)}${note}`;
}
