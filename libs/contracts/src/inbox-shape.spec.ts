import { carriesProof, claimedServer, jsonShapeRefusal, signatureClaim } from './inbox-shape.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const headers = (h: Record<string, string>) => (name: string) => h[name];
const CAVAGE = (keyId: string) =>
  `keyId="${keyId}",algorithm="rsa-sha256",headers="(request-target) host date digest",signature="QUJD+/=="`;

describe('jsonShapeRefusal', () => {
  it('counts values as commas plus containers plus one, outside strings', () => {
    expect(jsonShapeRefusal(bytes('[1,2,3]'), 64, 4)).toBeNull();
    expect(jsonShapeRefusal(bytes('[1,2,3,4]'), 64, 4)).toBe('too many values');
    expect(jsonShapeRefusal(bytes('{"a":{"b":1}}'), 64, 3)).toBeNull();
    expect(jsonShapeRefusal(bytes('"a,b,c,d,e,[[[[["'), 2, 2)).toBeNull();
    expect(jsonShapeRefusal(bytes('"\\",,,,"'), 2, 2)).toBeNull();
  });

  it('refuses depth past the bound, and 2,500 four-member objects past 10,000 values', () => {
    expect(jsonShapeRefusal(bytes('[[[]]]'), 2, 100)).toBe('too deep');
    const tags = JSON.stringify({
      tag: Array.from({ length: 2500 }, () => ({ type: 'Hashtag', name: '#a', href: 'h' })),
    });
    expect(jsonShapeRefusal(bytes(tags), 64, 10_000)).toBe('too many values');
  });
});

describe('signatureClaim', () => {
  it('reads a well-formed draft-cavage Signature header', () => {
    const claim = signatureClaim(headers({ signature: CAVAGE('https://Mastodon.Example/users/a#main-key') }));
    expect(claim).toEqual({ keyId: 'https://Mastodon.Example/users/a#main-key', spec: 'draft-cavage' });
    expect(claimedServer(claim)).toBe('mastodon.example');
  });

  it('reads RFC 9421 Signature-Input with a Signature of the same label', () => {
    const claim = signatureClaim(
      headers({
        'signature-input':
          'sig1=("@method" "@target-uri" "content-digest");keyid="https://b.example/key";alg="rsa-v1_5-sha256";created=1700000000',
        signature: 'sig1=:QUJD:',
      }),
    );
    expect(claim).toEqual({ keyId: 'https://b.example/key', spec: 'rfc9421' });
  });

  it.each([
    ['none', {}],
    ['no signature parameter', { signature: 'keyId="https://c.example/k"' }],
    ['a keyId that is not a URL', { signature: 'keyId="acct:someone@c.example",signature="QUJD"' }],
    ['an ftp keyId', { signature: 'keyId="ftp://d.example/key",signature="QUJD"' }],
    ['unquoted values', { signature: 'keyId=https://e.example/key,signature="QUJD"' }],
    ['a prefixed name', { signature: 'xkeyId="https://e.example/key",signature="QUJD"' }],
    ['a signature that is not base64', { signature: 'keyId="https://e.example/key",signature="<script>"' }],
    [
      '9421 labels that differ',
      { 'signature-input': 'a=("@method");keyid="https://f.example/k"', signature: 'b=:QUJD:' },
    ],
    ['9421 without keyid', { 'signature-input': 'a=("@method");alg="x"', signature: 'a=:QUJD:' }],
    ['a 9 KB header', { signature: `${CAVAGE('https://g.example/k')},x="${'a'.repeat(9000)}"` }],
  ])('refuses %s', (_name, h) => {
    expect(signatureClaim(headers(h as Record<string, string>))).toBeNull();
  });
});

describe('carriesProof', () => {
  it('finds a proof naming an http(s) verification method, and nothing else', () => {
    expect(
      carriesProof({ proof: { type: 'DataIntegrityProof', verificationMethod: 'https://a.example/k' } }),
    ).toBe(true);
    expect(carriesProof({ proof: [{ verificationMethod: 'https://a.example/k' }] })).toBe(true);
    expect(carriesProof({ proof: { verificationMethod: 'javascript:alert(1)' } })).toBe(false);
    expect(carriesProof({ proof: 'x' })).toBe(false);
    expect(carriesProof({})).toBe(false);
    expect(carriesProof([{ proof: { verificationMethod: 'https://a.example/k' } }])).toBe(false);
    expect(carriesProof(null)).toBe(false);
  });
});
