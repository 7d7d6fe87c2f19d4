/** The text of `moviedb-mcp --help`. */
export const HELP = `Usage: moviedb-mcp [command] [arguments]

Commands:
  serve                     start the server (the default; SIGTERM or Ctrl+C drains and exits 0)
  token [user] [password]   sign in through the running server and print a bearer token
                            (default user user123; follows PUBLIC_URL, else HOST and PORT)
  check                     validate configuration, schema and operations; print each tool's size;
                            fail if the tool list differs from the tool lock
  tools [--lock]            list the tools: who may call each, its scopes, its size in tokens;
                            --lock writes operations/tools.lock.json, the approved list check compares
  migrate                   migrate (and on first run seed) the database, then exit

Options:
  -h, --help                show this help
  -v, --version             print the version

Settings are environment variables; a .env file in the current folder is read first (the environment
wins). .env.example lists every setting with its default; docs/configuration.md explains them.

Exit codes: 0 ok, 1 failed, 64 usage, 65 invalid schema or operations, 69 port or database unavailable,
70 unexpected, 77 port not permitted, 78 invalid configuration (a restart cannot fix it).

From a checkout: npx moviedb-mcp <command>, or npm start -- <command>.`;
