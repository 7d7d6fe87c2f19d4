/**
 * GraphQL over HTTP against a base URL (one server, or a load balancer in front of several): post an
 * operation, sign a user in, register a fresh one.
 */
import { randomBytes } from 'node:crypto';

export interface GraphQLResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: {
    data?: T | null;
    errors?: Array<{ message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }>;
  };
}

export interface GraphQLClient {
  graphql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    token?: string,
  ): Promise<GraphQLResponse<T>>;
  /** Signs a seed or registered user in and returns the bearer token. */
  login(username: string, password: string): Promise<string>;
  /** Registers a fresh user with a unique name and returns its token and username. */
  newUser(): Promise<{ token: string; username: string }>;
}

let users = 0;

export function createGraphQLClient(baseUrl: string): GraphQLClient {
  const graphql: GraphQLClient['graphql'] = async (query, variables, token) => {
    const response = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ query, variables }),
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as GraphQLResponse<never>['body'],
    };
  };

  return {
    graphql,
    async login(username, password) {
      const result = await graphql<{ login: { token: string } }>(
        'mutation ($input: LoginInput!) { login(input: $input) { token } }',
        { input: { username, password } },
      );
      const token = result.body.data?.login.token;
      if (!token) throw new Error(`login failed: ${JSON.stringify(result.body)}`);
      return token;
    },
    async newUser() {
      const username = `tester_${process.pid}_${++users}_${randomBytes(3).toString('hex')}`;
      const result = await graphql<{ register: { token: string } }>(
        'mutation ($input: RegisterInput!) { register(input: $input) { token } }',
        { input: { username, email: `${username}@example.com`, password: 'secret123' } },
      );
      const token = result.body.data?.register.token;
      if (!token) throw new Error(`register failed: ${JSON.stringify(result.body)}`);
      return { token, username };
    },
  };
}

/** The first error's classification, the thing an agent branches on. */
export function classificationOf(response: GraphQLResponse): unknown {
  return response.body.errors?.[0]?.extensions?.classification;
}
