#!/usr/bin/env node
// Prints a bearer token for a user by signing in through the running server's GraphQL API.
// Usage: npm run --silent token -- [username] [password]   (default: user user123)
// MOVIEDB_URL picks the server (default http://127.0.0.1:8080).
const [username = 'user', password = 'user123'] = process.argv.slice(2);
const url = `${process.env.MOVIEDB_URL ?? 'http://127.0.0.1:8080'}/graphql`;

const response = await fetch(url, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    query: 'mutation ($input: LoginInput!) { login(input: $input) { token } }',
    variables: { input: { username, password } },
  }),
}).catch((error) => {
  console.error(
    `Cannot reach ${url}: ${error.cause?.code ?? error.message}. Is the server running (npm start)?`,
  );
  process.exit(1);
});
const body = await response.json();
const token = body.data?.login?.token;
if (!token) {
  console.error(`Sign-in failed: ${body.errors?.[0]?.message ?? response.status}`);
  process.exit(1);
}
console.log(token);
