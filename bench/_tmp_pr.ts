import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
const db = new Database(mkdtempSync('/tmp/pr-') + '/x.db');
db.pragma('journal_mode = WAL');
const N = 50000;
for (let r = 0; r < 3; r++) {
  let t = performance.now();
  for (let i = 0; i < N; i++) { db.pragma('busy_timeout = 0'); db.pragma('busy_timeout = 5000'); }
  console.log('pragma x2', ((performance.now() - t) * 1000 / N).toFixed(2), 'us');
  t = performance.now();
  for (let i = 0; i < N; i++) { db.exec('PRAGMA busy_timeout = 0'); db.exec('PRAGMA busy_timeout = 5000'); }
  console.log('exec x2', ((performance.now() - t) * 1000 / N).toFixed(2), 'us');
  console.log(db.pragma('busy_timeout', { simple: true }));
  db.exec('PRAGMA busy_timeout = 0'); console.log(db.pragma('busy_timeout', { simple: true })); db.exec('PRAGMA busy_timeout = 5000');
}
