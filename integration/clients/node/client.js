// Drives one Node MySQL client against overloadsql for the Go tests in integration/clients.
//
// Usage: node client.js DRIVER SCENARIO, DRIVER one of mysql2, mysql, knex. The server is given in
// the environment: OSQL_HOST, OSQL_PORT (main listener), OSQL_ADMIN_PORT, OSQL_USER,
// OSQL_PASSWORD, OSQL_TABLE (a table name of its own). Every observation is printed as one JSON
// line {"step": ..., ...}; an error as {"step": ..., "error": {"errno", "sqlstate", "message"}}.
// The Go test asserts; this script only reports. Every wait is bounded.
'use strict';

const path = require('path');
const util = require('util');
const mysql2 = require('mysql2/promise');
const mysql = require('mysql');
const knexFactory = require('knex');

const env = process.env;
const HOST = env.OSQL_HOST;
const PORT = Number(env.OSQL_PORT);
const ADMIN_PORT = Number(env.OSQL_ADMIN_PORT);
const USER = env.OSQL_USER;
const PASSWORD = env.OSQL_PASSWORD;
const TABLE = env.OSQL_TABLE;
const POLL_MS = 15000;

function emit(step, fields = {}) {
  process.stdout.write(JSON.stringify({ step, ...fields }) + '\n');
}

function errorOf(e) {
  return { errno: e.errno ?? null, sqlstate: e.sqlState ?? null, message: e.sqlMessage ?? e.message };
}

const connOptions = (port = PORT) => ({
  host: HOST, port, user: USER, password: PASSWORD, database: 'main', connectTimeout: 5000,
});

// A small promise interface over each driver: query(sql, params) -> rows, close().
async function connect(driver) {
  if (driver === 'mysql') {
    const c = mysql.createConnection(connOptions());
    await util.promisify(c.connect.bind(c))();
    const q = util.promisify(c.query.bind(c));
    return { query: (sql, params) => q(sql, params), close: () => util.promisify(c.end.bind(c))() };
  }
  const c = await mysql2.createConnection(connOptions());
  return { query: async (sql, params) => (await c.query(sql, params))[0], close: () => c.end(), raw: c };
}

const logStderr = (m) => process.stderr.write(`knex: ${m}\n`);

function knex(extra = {}) {
  return knexFactory({
    client: 'mysql2',
    connection: connOptions(),
    pool: { min: 0, max: 2 },
    acquireConnectionTimeout: 5000,
    migrations: { directory: path.join(__dirname, 'migrations') },
    log: { warn: logStderr, error: logStderr, deprecate: logStderr, debug: logStderr }, // stdout is for reports
    ...extra,
  });
}

async function admin(sql) {
  const c = await mysql2.createConnection({ host: HOST, port: ADMIN_PORT, user: 'default', password: '', connectTimeout: 5000 });
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const plain = (rows) => rows.map((r) => Object.values(r));

async function poll(what, attempt) {
  const deadline = Date.now() + POLL_MS;
  for (let tries = 1; tries <= 1000 && Date.now() < deadline; tries++) {
    const got = await attempt();
    if (got !== undefined) return [got, tries];
    await new Promise((r) => setTimeout(r, 50));
  }
  emit(what, { timeout: POLL_MS });
  process.exit(1);
}

const scenarios = {
  async connect(driver) {
    if (driver === 'knex') {
      const k = knex();
      emit('connect', { user: Object.values((await k.raw('SELECT CURRENT_USER()'))[0][0])[0] });
      return k.destroy();
    }
    const c = await connect(driver);
    emit('connect', { user: Object.values((await c.query('SELECT CURRENT_USER()'))[0])[0] });
    return c.close();
  },

  async crud(driver) {
    if (driver === 'knex') {
      const k = knex();
      await k.schema.createTable(TABLE, (t) => { t.integer('id').primary(); t.string('name', 40); });
      await k(TABLE).insert([{ id: 1, name: 'one' }, { id: 2, name: 'two' }, { id: 3, name: "it's" }]);
      await k(TABLE).where({ id: 2 }).update({ name: 'TWO' });
      await k(TABLE).where({ id: 1 }).del();
      emit('rows', { rows: plain(await k(TABLE).select('id', 'name').orderBy('id')) });
      return k.destroy();
    }
    const c = await connect(driver);
    await c.query(`CREATE TABLE ${TABLE} (id INT PRIMARY KEY, name VARCHAR(40))`);
    await c.query(`INSERT INTO ${TABLE} VALUES ?`, [[[1, 'one'], [2, 'two'], [3, "it's"]]]);
    await c.query(`UPDATE ${TABLE} SET name = ? WHERE id = ?`, ['TWO', 2]);
    await c.query(`DELETE FROM ${TABLE} WHERE id = ?`, [1]);
    emit('rows', { rows: plain(await c.query(`SELECT id, name FROM ${TABLE} ORDER BY id`)) });
    return c.close();
  },

  async rollback(driver) {
    const count = `SELECT COUNT(*) AS n FROM ${TABLE}`;
    if (driver === 'knex') {
      const k = knex();
      await k.schema.createTable(TABLE, (t) => { t.integer('id').primary(); });
      await k.transaction(async (tx) => {
        await tx(TABLE).insert({ id: 1 });
        await tx.rollback();
      }).catch(() => {}); // knex rejects the transaction's promise on an explicit rollback
      emit('after_rollback', { count: (await k.raw(count))[0][0].n });
      await k.transaction(async (tx) => { await tx(TABLE).insert({ id: 2 }); });
      emit('after_commit', { count: (await k.raw(count))[0][0].n });
      return k.destroy();
    }
    const c = await connect(driver);
    await c.query(`CREATE TABLE ${TABLE} (id INT PRIMARY KEY)`);
    await c.query('START TRANSACTION');
    await c.query(`INSERT INTO ${TABLE} VALUES (1)`);
    await c.query('ROLLBACK');
    emit('after_rollback', { count: (await c.query(count))[0].n });
    await c.query('START TRANSACTION');
    await c.query(`INSERT INTO ${TABLE} VALUES (2)`);
    await c.query('COMMIT');
    await c.close();
    const d = await connect(driver);
    emit('after_commit', { count: (await d.query(count))[0].n });
    return d.close();
  },

  // A foreign key to a primary key: a knex migration for knex, plain DDL otherwise.
  async fk(driver) {
    const parent = `${TABLE}_parent`;
    const child = `${TABLE}_child`;
    let q;
    let done;
    if (driver === 'knex') {
      const k = knex();
      const [, applied] = await k.migrate.latest();
      emit('migrated', { migrations: applied.map((m) => path.basename(m)) });
      emit('lock', { is_locked: (await k('knex_migrations_lock').select('is_locked'))[0].is_locked });
      q = (sql) => k.raw(sql);
      done = () => k.destroy();
    } else {
      const c = await connect(driver);
      await c.query(`CREATE TABLE ${parent} (id INT PRIMARY KEY, name VARCHAR(40))`);
      await c.query(`CREATE TABLE ${child} (id INT PRIMARY KEY, parent_id INT NOT NULL, FOREIGN KEY (parent_id) REFERENCES ${parent}(id))`);
      q = (sql) => c.query(sql);
      done = () => c.close();
    }
    emit('created', { tables: [child, parent] });
    await q(`INSERT INTO ${parent} VALUES (1, 'p')`);
    await q(`INSERT INTO ${child} VALUES (1, 1)`);
    try {
      await q(`INSERT INTO ${child} VALUES (2, 99)`);
      emit('orphan');
    } catch (e) {
      emit('orphan', { error: errorOf(e) });
    }
    return done();
  },

  // Server-side prepared statements (COM_STMT_PREPARE / EXECUTE), run twice with new values.
  async prepared(driver) {
    const c = await mysql2.createConnection(connOptions());
    await c.query(`CREATE TABLE ${TABLE} (id INT PRIMARY KEY, name VARCHAR(40))`);
    for (const [id, name] of [[1, 'one'], [2, "it's"]]) {
      await c.execute(`INSERT INTO ${TABLE} VALUES (?, ?)`, [id, name]);
    }
    const got = [];
    for (const id of [1, 2]) {
      const [rows] = await c.execute(`SELECT id, name FROM ${TABLE} WHERE id = ?`, [id]);
      got.push(...plain(rows));
    }
    emit('rows', { rows: got });
    return c.end();
  },

  async overload(driver) {
    await admin('SET GLOBAL simulated_os_cpu_overload = 7');
    try {
      let q;
      let done;
      if (driver === 'knex') {
        // One connection, so the session settings apply to every statement.
        const k = knex({ pool: { min: 1, max: 1 } });
        q = (sql) => k.raw(sql);
        done = () => k.destroy();
      } else {
        const c = await connect(driver);
        q = (sql) => c.query(sql);
        done = () => c.close();
      }
      await q('SET min_os_cpu_wait_time_ratio_to_throw = 1, max_os_cpu_wait_time_ratio_to_throw = 2');
      const [err, tries] = await poll('rejected', async () => {
        try {
          await q('SELECT 1');
        } catch (e) {
          return errorOf(e);
        }
        return undefined;
      });
      emit('rejected', { error: err, tries });
      await q('SET max_os_cpu_wait_time_ratio_to_throw = 0');
      await q('SELECT 1');
      emit('after', { value: 1 });
      await done();
    } finally {
      await admin('SET GLOBAL simulated_os_cpu_overload = -1');
    }
  },

  // New connections get 1040 while dropping is on; the pool works again once it ends.
  async pool(driver) {
    let use;
    let done;
    if (driver === 'knex') {
      // Idle connections leave the pool after 100 ms, so a use after that needs a new one.
      const k = knex({ pool: { min: 0, max: 2, idleTimeoutMillis: 100, reapIntervalMillis: 50 } });
      const pool = () => k.client.pool;
      use = async (fresh) => {
        if (fresh) await poll('emptied', async () => (pool().numFree() + pool().numUsed() === 0 ? true : undefined));
        await k.raw('SELECT 1');
        return 1;
      };
      done = () => k.destroy();
    } else {
      // Each use takes a connection from the pool and destroys it after, so the next use needs
      // a new one.
      const p = driver === 'mysql' ? mysql.createPool({ ...connOptions(), connectionLimit: 2 })
        : mysql2.createPool({ ...connOptions(), connectionLimit: 2 });
      const get = driver === 'mysql' ? util.promisify(p.getConnection.bind(p)) : () => p.getConnection();
      use = async () => {
        const c = await get();
        try {
          if (driver === 'mysql') await util.promisify(c.query.bind(c))('SELECT 1');
          else await c.query('SELECT 1');
        } finally {
          c.destroy();
        }
        return 1;
      };
      done = () => (driver === 'mysql' ? util.promisify(p.end.bind(p))() : p.end());
    }
    emit('before', { value: await use(false) });
    await admin('SET GLOBAL simulated_os_cpu_overload = 7');
    await admin('SET GLOBAL min_os_cpu_wait_time_ratio_to_drop_connection = 1');
    await admin('SET GLOBAL max_os_cpu_wait_time_ratio_to_drop_connection = 2');
    try {
      const [err, tries] = await poll('dropped', async () => {
        try {
          await use(true);
        } catch (e) {
          return errorOf(e);
        }
        return undefined;
      });
      emit('dropped', { error: err, tries });
    } finally {
      await admin('SET GLOBAL min_os_cpu_wait_time_ratio_to_drop_connection = 0');
      await admin('SET GLOBAL max_os_cpu_wait_time_ratio_to_drop_connection = 0');
      await admin('SET GLOBAL simulated_os_cpu_overload = -1');
    }
    const [value, tries] = await poll('recovered', async () => {
      try {
        return await use(false);
      } catch (e) {
        return undefined;
      }
    });
    emit('recovered', { value, tries });
    return done();
  },
};

const [driver, scenario] = process.argv.slice(2);
scenarios[scenario](driver).then(
  () => process.exit(0),
  (e) => {
    emit('unexpected', { error: errorOf(e) });
    process.exit(1);
  },
);
