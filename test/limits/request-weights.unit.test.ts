import { describe, expect, it } from 'vitest';
import {
  DEFAULT_METHOD_POINTS,
  METHOD_POINTS,
  NOTIFICATION_POINTS,
  mcpMessagePoints,
  refusedDocumentPoints,
} from '../../src/limits/request-weights.js';

describe('request weights', () => {
  it('a request costs its method’s points; an unknown or odd method the default', () => {
    expect(mcpMessagePoints({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBe(
      METHOD_POINTS['tools/list'],
    );
    expect(mcpMessagePoints({ jsonrpc: '2.0', id: 'a', method: 'initialize' })).toBe(5);
    expect(mcpMessagePoints({ jsonrpc: '2.0', id: 1, method: 'ping' })).toBe(2);
    expect(mcpMessagePoints({ jsonrpc: '2.0', id: 1, method: 'nope/nope' })).toBe(DEFAULT_METHOD_POINTS);
    // Names of Object.prototype are methods like any other, not table entries.
    expect(mcpMessagePoints({ jsonrpc: '2.0', id: 1, method: 'constructor' })).toBe(DEFAULT_METHOD_POINTS);
    expect(mcpMessagePoints({ jsonrpc: '2.0', id: 1, method: '__proto__' })).toBe(DEFAULT_METHOD_POINTS);
  });

  it('notifications, responses and anything without a method cost the notification points', () => {
    for (const message of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 1, method: 5 },
      null,
      42,
    ])
      expect(mcpMessagePoints(message), JSON.stringify(message)).toBe(NOTIFICATION_POINTS);
  });

  it('every weight is a whole number of at least one point (Redis counts in integers)', () => {
    for (const points of [...Object.values(METHOD_POINTS), DEFAULT_METHOD_POINTS, NOTIFICATION_POINTS])
      expect(Number.isInteger(points) && points >= 1).toBe(true);
  });

  it('a refused document costs one point plus one per 4 KiB of source', () => {
    expect(refusedDocumentPoints(0)).toBe(1);
    expect(refusedDocumentPoints(4095)).toBe(1);
    expect(refusedDocumentPoints(4096)).toBe(2);
    expect(refusedDocumentPoints(100 * 1024)).toBe(26);
    expect(refusedDocumentPoints(-5)).toBe(1);
  });
});
