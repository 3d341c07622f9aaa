// Preloaded into a Switchboard server by bench/request-work.ts (node --require): counts the
// promises the process creates and the SQLite statements it runs. On SIGUSR2
// it appends what it counted since the last signal to REQUEST_WORK_FILE, as one JSON line,
// and starts again. better-sqlite3 is the one the server's checkout loads (REQUEST_WORK_ROOT).
// Counting promises turns Node's promise hooks on, so the server's CPU is not what the API
// bench measures: only the counts are the figures.
const { createHook } = require('node:async_hooks');
const { appendFileSync } = require('node:fs');
const SQLite = require(require.resolve('better-sqlite3', { paths: [process.env.REQUEST_WORK_ROOT ?? __dirname] }));

let promises = 0;
let statements = 0;
createHook({ init(_id, type) { if (type === 'PROMISE') promises++; } }).enable();

function counted(fn) {
  return function (...args) {
    statements++;
    return fn.apply(this, args);
  };
}
const statementPrototype = Object.getPrototypeOf(new SQLite(':memory:').prepare('select 1'));
for (const method of ['run', 'all', 'get', 'iterate']) statementPrototype[method] = counted(statementPrototype[method]);
SQLite.prototype.exec = counted(SQLite.prototype.exec);

process.on('SIGUSR2', () => {
  appendFileSync(process.env.REQUEST_WORK_FILE, `${JSON.stringify({ promises, statements })}\n`);
  promises = 0;
  statements = 0;
});
