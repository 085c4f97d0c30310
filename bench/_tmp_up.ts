import Database from 'better-sqlite3';
const db = new Database(':memory:');
const mk = (coll: string, name: string) => db.exec(`CREATE TABLE ${name} (bettor TEXT NOT NULL ${coll}, settled INTEGER NOT NULL, status TEXT NOT NULL, maker INTEGER NOT NULL, base_token TEXT NOT NULL ${coll}, affiliate TEXT NOT NULL ${coll}, n INTEGER NOT NULL, PRIMARY KEY (bettor, settled, status, maker, base_token, affiliate)) WITHOUT ROWID;`);
mk('COLLATE NOCASE', 'c_nocase'); mk('', 'c_binary'); mk('COLLATE NOCASE', 'c_trig');
db.exec(`CREATE TABLE src (bettor TEXT, settled INT, status TEXT, maker INT, base_token TEXT, affiliate TEXT);
CREATE TRIGGER t AFTER INSERT ON src BEGIN INSERT INTO c_trig VALUES (NEW.bettor, NEW.settled, NEW.status, NEW.maker, NEW.base_token, NEW.affiliate, 1) ON CONFLICT DO UPDATE SET n = n + 1; END;`);
const bettors = Array.from({ length: 1000 }, (_, i) => '0x' + (i * 7919).toString(16).padStart(40, '0'));
const tok = '0x00000000000000000000000000000000000000C1', aff = '0x0000000000000000000000000000000000000000';
const up = (t: string) => db.prepare(`INSERT INTO ${t} VALUES (?, 0, 'PENDING', 0, ?, ?, 1) ON CONFLICT DO UPDATE SET n = n + 1`);
const upd = (t: string) => db.prepare(`UPDATE ${t} SET n = n + 1 WHERE bettor = ? AND settled = 0 AND status = 'PENDING' AND maker = 0 AND base_token = ? AND affiliate = ?`);
const ins = db.prepare(`INSERT INTO src VALUES (?, 0, 'PENDING', 0, ?, ?)`);
const N = 200000;
for (let r = 0; r < 3; r++) for (const [name, st] of [['upsert nocase', up('c_nocase')], ['upsert binary', up('c_binary')], ['update nocase', upd('c_nocase')], ['trigger', ins]] as const) {
  const t = performance.now();
  db.transaction(() => { for (let i = 0; i < N; i++) st.run(bettors[i % 1000], tok, aff); })();
  console.log(name, ((performance.now() - t) * 1000 / N).toFixed(2), 'us');
}
