/**
 * `moviedb-mcp token [user] [password]`: signs a user in through the running server's GraphQL API and
 * prints the bearer token. The server is found from the same settings it was started with (PUBLIC_URL,
 * else HOST and PORT), so `PORT=9000` in .env or the environment is followed.
 */
import { loadConfig, type LoadConfigOptions } from '../config.js';
import { browsableBaseUrl } from './banner.js';
import { describeFailure } from './describe-failure.js';
import { EXIT } from './exit-codes.js';

export async function token(args: string[], options: LoadConfigOptions = {}): Promise<number> {
  const [username = 'user', password = 'user123'] = args;
  let base: string;
  try {
    const config = loadConfig(process.env, options);
    if (!config.mcp.publicUrl && config.port === 0) {
      console.error(
        'PORT is 0 (a random port): set PORT or PUBLIC_URL to the running server to mint a token.',
      );
      return EXIT.USAGE;
    }
    base = browsableBaseUrl(config, config.port);
  } catch (error) {
    const failure = describeFailure(error);
    console.error(failure.message);
    return failure.exitCode;
  }
  const url = `${base}/graphql`;
  let body: { data?: { login?: { token?: string } }; errors?: { message: string }[] };
  let status: number;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        query: 'mutation ($input: LoginInput!) { login(input: $input) { token } }',
        variables: { input: { username, password } },
      }),
      signal: AbortSignal.timeout(10_000),
    });
    status = response.status;
    body = (await response.json()) as typeof body;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    console.error(
      `Cannot reach ${url} (${cause}). Is the server running (npm start)? ` +
        'The token command follows PUBLIC_URL, else HOST and PORT, from the environment or .env.',
    );
    return EXIT.UNAVAILABLE;
  }
  const minted = body.data?.login?.token;
  if (!minted) {
    console.error(`Sign-in as ${username} failed: ${body.errors?.[0]?.message ?? `HTTP ${status}`}`);
    return EXIT.FAILURE;
  }
  console.log(minted);
  return EXIT.OK;
}
