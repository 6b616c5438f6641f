import { NotFoundException } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import type { Request, Response } from 'express';
import type { GatewayConfig } from '../config.js';
import { apiBaseOf } from './api-base.js';
import { PagesController } from './pages.controller.js';
import type { PageRequest, PagesService } from './pages.service.js';

describe("where rendered pages reach the gateway's API", () => {
  test('over loopback when the gateway listens on every address, IPv4 or IPv6', () => {
    expect(apiBaseOf({ address: '0.0.0.0', family: 'IPv4', port: 3000 })).toBe('http://127.0.0.1:3000');
    expect(apiBaseOf({ address: '::', family: 'IPv6', port: 8080 })).toBe('http://127.0.0.1:8080');
  });

  test('on the one address it listens on otherwise', () => {
    expect(apiBaseOf({ address: '10.1.2.3', family: 'IPv4', port: 3000 })).toBe('http://10.1.2.3:3000');
    expect(apiBaseOf({ address: '::1', family: 'IPv6', port: 3000 })).toBe('http://[::1]:3000');
    expect(apiBaseOf({ address: '::ffff:127.0.0.1', family: 'IPv6', port: 3000 })).toBe(
      'http://127.0.0.1:3000',
    );
  });

  test('a gateway on no TCP port says so', () => {
    expect(() => apiBaseOf(null)).toThrow(/no TCP port/);
    expect(() => apiBaseOf('/run/gateway.sock')).toThrow(/no TCP port/);
  });

  test("a page asked for by a reader who has hung up is still rendered with the server's own address", async () => {
    const asked: PageRequest[] = [];
    const pages = {
      render: async (request: PageRequest) => {
        asked.push(request);
        return null;
      },
    } as unknown as PagesService;
    const server = { address: () => ({ address: '0.0.0.0', family: 'IPv4', port: 4123 }) };
    const adapterHost = { httpAdapter: { getHttpServer: () => server } } as unknown as HttpAdapterHost;
    const controller = new PagesController(
      pages,
      { SITE_URL: 'https://blog.example' } as GatewayConfig,
      adapterHost,
    );
    // A destroyed socket has no local address or port left.
    const gone = {
      path: '/garage',
      originalUrl: '/garage?page=2',
      query: {},
      headers: { host: 'blog.example' },
      socket: { destroyed: true },
      protocol: 'https',
      get: () => undefined,
    } as unknown as Request;
    await expect(controller.page(gone, {} as Response)).rejects.toBeInstanceOf(NotFoundException);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.apiBase).toBe('http://127.0.0.1:4123');
    expect(asked[0]!.search).toBe('?page=2');
  });
});
