/**
 * The hostile corpus: requests a hostile client would send to /graphql, /mcp and the HTTP server itself,
 * generated from families of bad values crossed with the places they can reach. Each case says only what
 * to send; the test asserts the same invariants for every answer (no 5xx, no HTML, no leak, no -32603,
 * no INTERNAL_ERROR, under a second).
 */

import type { CorpusTokens, HostileCase } from './cases/shared.js';
import { paginationCases, stringCases } from './cases/strings.js';
import { tokenCases } from './cases/tokens.js';
import { bodyCases, mediaTypeCases } from './cases/bodies.js';
import { sizeAndBombCases } from './cases/sizes.js';
import { getCases, variableTypeCases } from './cases/variables-and-get.js';
import { jsonRpcCases, toolArgumentCases } from './cases/json-rpc.js';
import { agentSafetyCases } from './cases/agent-safety.js';
import { clientAnswerCases, sessionCases } from './cases/sessions.js';
import { resumptionCases } from './cases/resumption.js';
import { rawCases } from './cases/raw.js';
import { oversizedBodyCases } from './cases/oversized-bodies.js';
import { routeSpellingCases } from './cases/route-spellings.js';
import { schemaToolCases } from './cases/schema-tools.js';
import { modernRevisionCases } from './cases/modern-revision.js';
import { oauthEndpointCases } from './cases/oauth-endpoints.js';

export { type CorpusTokens, type HostileCase, type HttpCase, type RawCase } from './cases/shared.js';
export { USER_STREAM_EVENT_ID } from './cases/resumption.js';

export function generateHostileCorpus(tokens: CorpusTokens): HostileCase[] {
  return [
    ...stringCases(),
    ...paginationCases(),
    ...tokenCases(tokens),
    ...bodyCases(),
    ...mediaTypeCases(),
    ...sizeAndBombCases(),
    ...variableTypeCases(),
    ...getCases(),
    ...jsonRpcCases(),
    ...toolArgumentCases(),
    ...agentSafetyCases(tokens),
    ...sessionCases(),
    ...clientAnswerCases(),
    ...resumptionCases(),
    ...rawCases(),
    ...oversizedBodyCases(),
    ...routeSpellingCases(),
    ...schemaToolCases(),
    ...modernRevisionCases(tokens),
    ...oauthEndpointCases(),
  ];
}
