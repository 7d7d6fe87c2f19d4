import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSchema } from '../../src/graphql/schema.js';
import { createExecutor } from '../../src/graphql/executor.js';
import { loadOperations, OperationCatalogueError } from '../../src/operations/load-operations.js';
import { callTool, connectClient } from '../helpers/mcp.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const fixture = (name: string) => new URL(`../fixtures/${name}`, import.meta.url).pathname;

describe('the operation catalogue at start-up', () => {
  it('refuses to start with a readable list of every problem: file, line and message', () => {
    const executor = createExecutor(
      buildSchema(),
      { maxDepth: 10, maxCost: 50000, maxFieldAliases: 15 },
      () => {},
    );
    let problems: string[] = [];
    try {
      loadOperations(executor, fixture('operations-broken'));
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(OperationCatalogueError);
      problems = (error as OperationCatalogueError).problems;
    }
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Broken\.graphql:3:1: Syntax Error/),
        expect.stringMatching(/^GetNothing\.graphql:3:5: Cannot query field "noSuchField" on type "Movie"/),
        'Misnamed.graphql:1: the file must be named SomethingElse.graphql',
        "TwoRoots.graphql:1: must select exactly one root field (its value is the tool's data)",
        'tools.json:3: getNothing: Unrecognized key: "retries"',
        // Scopes come from the schema's @auth rules; a tools.json that still lists them stops the boot.
        'tools.json:2: ghostTool: Unrecognized key: "scopes"',
        // A text rendering may only name fields the operation selects.
        'tools.json:5: recommend.text.item: {titel} is not a field the operation selects',
        'tools.json:7: settings for "unknownTool", which no operation file defines',
      ]),
    );
  });

  it('a server pointed at a broken catalogue does not start', async () => {
    await expect(
      startTestServer('sqlite', { env: { OPERATIONS_DIR: fixture('operations-broken') } }),
    ).rejects.toThrow(/operation catalogue has problems/);
  });
});

describe('the partial-data policy per operation', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { env: { OPERATIONS_DIR: fixture('operations-partial') } });
  });
  afterAll(() => server.stop());

  it('partial data is isError true by default, with both data and errors; an opted-in operation treats it as success', async () => {
    const client = await connectClient(server.url);
    const strict = await callTool<({ id: string } | null)[]>(client, 'moviesByIds', { ids: ['1', '999'] });
    expect(strict.isError).toBe(true);
    expect(strict.structuredContent.data).toEqual([{ id: '1', title: 'The Shawshank Redemption' }, null]);
    expect(strict.structuredContent.errors).toEqual([
      expect.objectContaining({
        classification: 'NOT_FOUND',
        path: ['moviesByIds', 1],
        extensions: expect.objectContaining({ entityType: 'Movie' }),
      }),
    ]);
    // The text: the error's line, then the JSON (error-text.test.ts).
    const [line, json] = (strict.content as { text: string }[])[0]!.text.split('\n');
    expect(line).toMatch(/^NOT_FOUND \(not retryable\): no movies with ids 999/);
    expect(JSON.parse(json!)).toEqual(strict.structuredContent);
    const lenient = await callTool(client, 'moviesByIdsLenient', { ids: ['1', '999'] });
    expect(lenient.isError).toBe(false);
    expect(lenient.structuredContent.errors).toHaveLength(1);
    const tools = await client.listTools();
    // No leading comment: the description falls back to the root field's schema description.
    expect(tools.tools.find((t) => t.name === 'moviesByIdsLenient')!.description).toMatch(
      /^Several movies by id/,
    );
    await client.close();
  });
});
