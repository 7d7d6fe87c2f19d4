/**
 * A tool's text rendering (src/operations/text-rendering.ts): placeholders filled from the data, lists
 * counted and listed, nulls, missing values and empty strings shown as "?", paths through lists giving
 * every value. A pure function of the settings, the data's schema and the data.
 */
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../src/operations/json-schema.js';
import { compileTextRendering, type TextRenderingSettings } from '../../src/operations/text-rendering.js';

const entry: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    status: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    content: { anyOf: [{ type: 'null' }, { type: 'object', properties: { title: { type: 'string' } } }] },
  },
};
const entries: JsonSchema = { type: 'array', items: entry };
const page: JsonSchema = { type: 'object', properties: { total: { type: 'number' }, items: entries } };

function renderer(settings: TextRenderingSettings, schema: JsonSchema) {
  const compiled = compileTextRendering(settings, schema, 'tools.x.text');
  if (!('render' in compiled)) throw new Error(compiled.problems.join('; '));
  return compiled.render;
}

describe('text rendering', () => {
  const list = renderer(
    {
      template: '{count} entries: {items}',
      item: '{content.title} ({status}; entry id {id}; {tags})',
      empty: 'The watch list is empty.',
    },
    entries,
  );

  it('counts and lists the elements, skipping null ones, with "?" for nulls, empty strings and empty lists', () => {
    expect(
      list([
        { id: '1', status: 'WATCHED', tags: ['a', null, 'b'], content: { title: 'Se7en' } },
        null,
        { id: '', status: null, tags: [], content: null },
      ]),
    ).toBe('2 entries: Se7en (WATCHED; entry id 1; a, ?, b), ? (?; entry id ?; ?)');
  });

  it('says the empty text for an empty list', () => {
    expect(list([])).toBe('The watch list is empty.');
  });

  it('renders the list a field names, beside the fields of the data that holds it', () => {
    const render = renderer(
      {
        template: '{total} in all, {count} here: {items}',
        items: 'items',
        item: '{id}',
        empty: 'None of {total}.',
      },
      page,
    );
    expect(render({ total: 3, items: [{ id: 7 }, { id: 8 }] })).toBe('3 in all, 2 here: 7, 8');
    expect(render({ total: 3, items: [] })).toBe('None of 3.');
  });

  it('gives every value of a path through nested lists, and "?" for an empty string', () => {
    const render = renderer({ template: '{content.title} [{tags}] #{id}' }, entry);
    expect(render({ id: 5, tags: ['x', ['y', 'z']], content: { title: '' } })).toBe('? [x, y, z] #5');
  });

  it('refuses a placeholder the operation does not select, naming the setting', () => {
    expect(
      compileTextRendering({ template: '{count}: {items}', item: '{titel}' }, entries, 'tools.x.text'),
    ).toEqual({
      problems: ['tools.x.text.item: {titel} is not a field the operation selects'],
    });
  });
});
