import { embeddedIPv4, ipv6Groups, isForbiddenAddress, OutboundAllowList } from './address-policy.js';
import { envSchemas, loadConfig } from '../config.js';
import { z } from 'zod';

describe('isForbiddenAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private 10/8'],
    ['10.255.255.255', 'private 10/8'],
    ['172.16.0.1', 'private 172.16/12'],
    ['172.31.255.255', 'private 172.16/12'],
    ['192.168.1.1', 'private 192.168/16'],
    ['169.254.169.254', 'link-local, cloud metadata'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.255', 'CGNAT'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.10', 'TEST-NET-1'],
    ['198.51.100.7', 'TEST-NET-2'],
    ['203.0.113.9', 'TEST-NET-3'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'IPv6 link-local with a zone'],
    ['febf::1', 'IPv6 link-local, top of fe80::/10'],
    ['fc00::1', 'unique local'],
    ['fd12:3456:789a::1', 'unique local'],
    ['ff02::1', 'IPv6 multicast'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['3fff::1', 'IPv6 documentation (RFC 9637)'],
    ['2001::1', 'Teredo'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['::ffff:10.1.2.3', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated loopback'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['64:ff9b::10.0.0.1', 'NAT64 of private'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['2002:7f00:1::1', '6to4 of loopback'],
    ['2002:c0a8:101::', '6to4 of 192.168.1.1'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
    ['100::1', 'discard-only'],
    ['not-an-ip', 'not an address'],
    ['', 'empty'],
  ])('%s is refused (%s)', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    '93.184.216.34',
    '1.1.1.1',
    '8.8.8.8',
    '172.15.255.255', // just below 172.16/12
    '172.32.0.1', // just above
    '100.63.255.255', // just below CGNAT
    '100.128.0.1', // just above
    '169.253.255.255',
    '192.0.1.1',
    '198.17.255.255',
    '198.20.0.1',
    '223.255.255.255',
    '2606:4700::1',
    '2a00:1450:4001:80b::200e',
    '::ffff:93.184.216.34', // IPv4-mapped public
    '64:ff9b::5db8:d822', // NAT64 of a public address
    '2002:5db8:d822::1', // 6to4 of a public address
  ])('%s is allowed', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });

  it('reads every spelling of an IPv6 address', () => {
    expect(ipv6Groups('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('1::')).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(ipv6Groups('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    expect(ipv6Groups('127.0.0.1')).toBeNull();
    expect(embeddedIPv4('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIPv4('2606:4700::1')).toBeNull();
  });
});

describe('OutboundAllowList (OUTBOUND_ALLOW)', () => {
  it('allows none by default', () => {
    const none = OutboundAllowList.parse(undefined);
    expect(none.empty).toBe(true);
    expect(none.allowsAddress('127.0.0.1')).toBe(false);
    expect(none.allowsHost('localhost')).toBe(false);
  });

  it('takes host names, addresses and ranges, comma-separated', () => {
    const allow = OutboundAllowList.parse(' 127.0.0.1 , old-blog.LAN., 10.1.0.0/16,fd00::/8 ');
    expect(allow.allowsAddress('127.0.0.1')).toBe(true);
    expect(allow.allowsAddress('::ffff:127.0.0.1')).toBe(true);
    expect(allow.allowsAddress('127.0.0.3')).toBe(false);
    expect(allow.allowsAddress('10.1.200.3')).toBe(true);
    expect(allow.allowsAddress('10.2.0.1')).toBe(false);
    expect(allow.allowsAddress('fd00::5')).toBe(true);
    expect(allow.allowsHost('old-blog.lan')).toBe(true);
    expect(allow.allowsHost('OLD-BLOG.lan.')).toBe(true);
    expect(allow.allowsHost('evil.old-blog.lan')).toBe(false);
  });

  it.each([
    ['http://127.0.0.1', 'not a host name'],
    ['127.0.0.1:8080', 'not a host name'],
    ['10.0.0.0/33', 'prefix length must be 0 to 32'],
    ['fd00::/129', 'prefix length must be 0 to 128'],
    ['example.com/8', 'not a host name, IP address or CIDR range'],
    ['bad host', 'not a host name'],
  ])('refuses %s with a message naming it', (entry, message) => {
    expect(() => OutboundAllowList.parse(entry)).toThrow(`"${entry}": `);
    expect(() => OutboundAllowList.parse(entry)).toThrow(message);
  });

  it('is read from the environment, a bad value stopping the start with the variable named', () => {
    const schema = z.object({ OUTBOUND_ALLOW: envSchemas.outboundAllow });
    expect(loadConfig(schema, {}).OUTBOUND_ALLOW.empty).toBe(true);
    expect(
      loadConfig(schema, { OUTBOUND_ALLOW: '127.0.0.1' }).OUTBOUND_ALLOW.allowsAddress('127.0.0.1'),
    ).toBe(true);
    expect(() => loadConfig(schema, { OUTBOUND_ALLOW: '127.0.0.1,http://x' })).toThrow(
      /OUTBOUND_ALLOW: "http:\/\/x": not a host name/,
    );
  });
});
