// Runs Verdaccio from its programmatic API: `node verdaccioMain.mjs CONFIG PORT`. Its command
// line refuses Node before 22 (a check of the CLI alone); the server it starts runs on Node 20,
// the project's engine, as the publishing test shows.
const [config, port] = process.argv.slice(2);
const { runServer } = await import('verdaccio');
const app = await runServer(config);
app.listen(Number(port), '127.0.0.1', () => process.stdout.write(`verdaccio listening on 127.0.0.1:${port}\n`));
