import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './fields.js';

/** A port an algorithm exposes over the VPN. */
export const PortSchema = Type.Object(
  { id: Type.Integer(), port: Type.Integer(), label: Nullable(Type.String()), result: Type.Integer() },
  { $id: 'Port' },
);
export type Port = Static<typeof PortSchema>;
