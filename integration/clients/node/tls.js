// Connects with Node mysql2 over TLS (the server's certificate is self-signed, so it is not
// verified) and prints the session's TLS status as one JSON line: {"cipher": ..., "version": ...},
// or {"error": {"errno", "sqlstate", "message"}}. The server is given in the environment:
// OSQL_HOST, OSQL_PORT, OSQL_USER, OSQL_PASSWORD. The Go test (integration/tls_test.go) asserts.
'use strict';

const mysql2 = require('mysql2/promise');

async function main() {
  const env = process.env;
  const c = await mysql2.createConnection({
    host: env.OSQL_HOST, port: Number(env.OSQL_PORT), user: env.OSQL_USER, password: env.OSQL_PASSWORD,
    connectTimeout: 5000, ssl: { rejectUnauthorized: false },
  });
  try {
    const [rows] = await c.query("SHOW STATUS LIKE 'Ssl_%'");
    const status = Object.fromEntries(rows.map((r) => [r.Variable_name, r.Value]));
    process.stdout.write(JSON.stringify({ cipher: status.Ssl_cipher, version: status.Ssl_version }) + '\n');
  } finally {
    await c.end();
  }
}

main().catch((e) => {
  process.stdout.write(JSON.stringify({ error: { errno: e.errno ?? null, sqlstate: e.sqlState ?? null, message: e.sqlMessage ?? e.message } }) + '\n');
  process.exitCode = 1;
});
