import { describe, expect, it } from 'vitest';
import { chooseLogFormat, createLogger } from '../src/logger.js';

describe('log format', () => {
  it('auto is pretty for a terminal and JSON for a pipe; pretty and json force one', () => {
    expect(chooseLogFormat('auto', true)).toBe('pretty');
    expect(chooseLogFormat('auto', false)).toBe('json');
    expect(chooseLogFormat('pretty', false)).toBe('pretty');
    expect(chooseLogFormat('json', true)).toBe('json');
  });

  it('pretty lines have a clock time, a level name and the fields, and still redact passwords', () => {
    const chunks: string[] = [];
    const logger = createLogger('info', { write: (chunk: string) => void chunks.push(chunk) }, 'pretty');
    logger.info({ requestId: 'r-1', password: 'hunter2' }, 'request');
    const line = chunks.join('');
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request \{.*"requestId":"r-1"/);
    expect(line).not.toContain('hunter2');
    expect(line).not.toContain('\u001b[');
  });

  it('json lines are one JSON object each, with numeric level and epoch time', () => {
    const chunks: string[] = [];
    const logger = createLogger('info', { write: (chunk: string) => void chunks.push(chunk) });
    logger.info({ requestId: 'r-2' }, 'request');
    expect(JSON.parse(chunks.join(''))).toMatchObject({ level: 30, msg: 'request', requestId: 'r-2' });
  });
});
