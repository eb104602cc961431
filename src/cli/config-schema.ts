/**
 * schemas/config.schema.json, generated from the command table: each key's schema is its flag's kind
 * (config-keys.ts names the keys). Types and closed sets only: the bounds of a duration or a count are
 * the kind's reader's to check (read-option.ts), so a config value out of them is refused in the
 * words the flag's would be, blamed on the key. `node scripts/update-config-schema.ts` writes the file
 * (part of `npm run readme`); test/cli/config-file.test.ts holds the file to this.
 */
import type { OptionSpec } from './command-table.ts';
import { configKeyRows } from './config-keys.ts';

type Schema = Readonly<Record<string, unknown>>;

const anyOf = (...schemas: Schema[]): Schema => ({ anyOf: schemas });
const text: Schema = { type: 'string' };
/** An array of `items`, at least one: the kinds that take several values also take one as it is. */
const arrayOf = (items: Schema): Schema => ({ type: 'array', items, minItems: 1 });

/** One value of an option's kind, as a config file may give it. */
function itemSchema(option: OptionSpec): Schema {
  switch (option.kind) {
    case 'boolean':
      return { type: 'boolean' };
    case 'string':
      return text;
    case 'path':
      return { type: 'string', minLength: 1 };
    case 'duration':
    case 'rate':
      // A number of seconds (a rate: per second), or the flag's text.
      return anyOf({ type: 'number' }, text);
    case 'count':
      return anyOf({ type: 'integer' }, text);
    case 'enum':
      return { enum: [...option.choices] };
    case 'destination':
      // KIND=DESTINATION, its kind one of the closed set: the reader's refusal names them.
      return { type: 'string', minLength: 3 };
    case 'name-or-path':
      return anyOf({ enum: [...option.choices] }, { type: 'string', minLength: 1 });
    case 'list':
      return anyOf(
        arrayOf(
          option.of === 'count' ? { type: 'integer' } : option.of === undefined ? text : { enum: [...option.of] },
        ),
        text,
      );
  }
}

/** An option's value: pairs as an object, a repeatable flag's one value or an array of them. */
function optionSchema(option: OptionSpec): Schema {
  if (option.pairs !== undefined && option.pairNames !== undefined) {
    const names = option.pairNames.map((name) => [name, { type: option.pairs }]);
    return { type: 'object', additionalProperties: false, properties: Object.fromEntries(names) };
  }
  if (option.pairs !== undefined) return { type: 'object', additionalProperties: { type: option.pairs } };
  return option.multiple ? anyOf(arrayOf(itemSchema(option)), itemSchema(option)) : itemSchema(option);
}

/**
 * The schema of a key whose flag several commands have, each with its own row (`--target`: conformance's
 * repeatable one and the others' single one): any of their branches, each once.
 */
function keySchema(rows: readonly OptionSpec[]): Schema {
  const branches = new Map<string, Schema>();
  for (const row of rows) {
    const schema = optionSchema(row);
    const { anyOf: union } = schema;
    const each = rows.length > 1 && Array.isArray(union) && Object.keys(schema).length === 1 ? union : [schema];
    for (const branch of each) branches.set(JSON.stringify(branch), branch);
  }
  const distinct = [...branches.values()];
  return distinct.length === 1 && distinct[0] !== undefined ? distinct[0] : { anyOf: distinct };
}

const scenariosSchema: Schema = {
  description: 'Scenarios for load and k6 manifest: names, paths of your own modules, or globs of them (perf/*.ts)',
  ...arrayOf({ type: 'string', minLength: 1 }),
};

export function configSchema(): Schema {
  const properties: Record<string, Schema> = { $schema: text };
  for (const [key, { flag, rows }] of configKeyRows()) {
    const first = rows[0];
    properties[key] =
      first === undefined ? scenariosSchema : { description: `--${flag}: ${first.description}`, ...keySchema(rows) };
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://svc-harness.dev/schemas/config.json',
    title: 'svc-harness config file (svc-harness.config.{ts,mts,cts,mjs,js,cjs,json})',
    description:
      'Defaults for the flags of conformance, load, run, regions and k6 manifest; a flag on the command line wins. Keys are the flags in camelCase (repeatable ones in the plural), each of its flag’s kind: a duration is seconds or the duration grammar’s text (1m30s), a list an array or the comma-separated text. Paths are relative to the config file. A key a command has no flag for is left out of that command. Generated from src/cli/command-table.ts (npm run readme).',
    type: 'object',
    additionalProperties: false,
    properties,
  };
}
