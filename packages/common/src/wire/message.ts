import { Type, type Static } from '@sinclair/typebox';

/** `{"msg": "..."}` answers. */
export const MessageSchema = Type.Object({ msg: Type.String() });
export type Message = Static<typeof MessageSchema>;

/** Error body: `msg` always; `code` from the error table; `message` names fields on validation errors. */
export const ErrorSchema = Type.Object(
  { msg: Type.String(), code: Type.Optional(Type.String()), message: Type.Optional(Type.Unknown()) },
  { description: 'Error' },
);
export type ErrorBody = Static<typeof ErrorSchema>;
