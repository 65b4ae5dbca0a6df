// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';

import { errorText } from './api.js';

describe('messages shown to browser users', () => {
  it("the SDK's advice to programmers becomes the button a browser user has", () => {
    const sdk = new Error(
      'This output is encrypted: call setupEncryption(privateKeyPath) with the private key of the organization.',
    );
    expect(errorText(sdk)).toBe(
      "This is encrypted for your organization: load your organization's private key file to read it.",
    );
    expect(errorText(new Error('The server is restarting.'))).toBe('The server is restarting.');
  });
});
