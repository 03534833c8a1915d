// A small stand-in for `@sinclair/typebox` (own code): the Type builders OpenClaw plugins use, producing
// plain JSON Schema. Used only when the plugin has no real typebox installed.
const OPTIONAL = Symbol.for('TypeBox.Optional');
const KIND = Symbol.for('TypeBox.Kind');

const make = (kind, schema, options = {}) => ({ ...options, ...schema, [KIND]: kind });

export const Kind = KIND;
export const OptionalKind = OPTIONAL;

export const Type = {
  String: (options) => make('String', { type: 'string' }, options),
  Number: (options) => make('Number', { type: 'number' }, options),
  Integer: (options) => make('Integer', { type: 'integer' }, options),
  Boolean: (options) => make('Boolean', { type: 'boolean' }, options),
  Null: (options) => make('Null', { type: 'null' }, options),
  Any: (options) => make('Any', {}, options),
  Unknown: (options) => make('Unknown', {}, options),
  Literal: (value, options) => make('Literal', { const: value, type: typeof value }, options),
  Array: (items, options) => make('Array', { type: 'array', items }, options),
  Union: (anyOf, options) => make('Union', { anyOf }, options),
  Enum: (values, options) => make('Enum', { enum: Object.values(values) }, options),
  Record: (_key, value, options) => make('Record', { type: 'object', additionalProperties: value }, options),
  Optional: (schema) => ({ ...schema, [KIND]: schema[KIND], [OPTIONAL]: 'Optional' }),
  Object: (properties, options) => {
    const required = Object.keys(properties).filter((k) => properties[k][OPTIONAL] !== 'Optional');
    const schema = { type: 'object', properties };
    if (required.length) schema.required = required;
    return make('Object', schema, options);
  },
};

export default Type;
