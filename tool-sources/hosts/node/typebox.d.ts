// Types of the @sinclair/typebox stand-in: the Type builders OpenClaw plugins use, giving plain JSON Schema.
export type TSchema = Record<string, unknown>;

export declare const Kind: unique symbol;
export declare const OptionalKind: unique symbol;

export interface TypeBuilder {
  String(options?: TSchema): TSchema;
  Number(options?: TSchema): TSchema;
  Integer(options?: TSchema): TSchema;
  Boolean(options?: TSchema): TSchema;
  Null(options?: TSchema): TSchema;
  Any(options?: TSchema): TSchema;
  Unknown(options?: TSchema): TSchema;
  Literal(value: string | number | boolean, options?: TSchema): TSchema;
  Array(items: TSchema, options?: TSchema): TSchema;
  Union(anyOf: TSchema[], options?: TSchema): TSchema;
  Enum(values: Record<string, string | number>, options?: TSchema): TSchema;
  Record(key: TSchema, value: TSchema, options?: TSchema): TSchema;
  Optional(schema: TSchema): TSchema;
  Object(properties: Record<string, TSchema>, options?: TSchema): TSchema;
}

export declare const Type: TypeBuilder;
export default Type;
