// `npm run cluster`'s own settings: the ports it was given (it forced port 0 on every process whatever was set) and
// the URLs it prints (it printed a given database URL with its password).
import { describe, expect, it } from 'vitest';
import { CLUSTER_PROCESSES, ClusterSettingError, clusterPorts, maskedUrl } from './settings.js';

describe('cluster ports', () => {
  it('gives every process a free port without a first port, or with 0', () => {
    expect(new Set(Object.values(clusterPorts({}, [])))).toEqual(new Set([0]));
    expect(new Set(Object.values(clusterPorts({ ODDEX_PORT: '0' }, [])))).toEqual(new Set([0]));
  });

  it('gives the processes consecutive ports from ODDEX_PORT or --port (the flag wins), in the documented order', () => {
    const ports = clusterPorts({ ODDEX_PORT: '9000' }, []);
    expect(CLUSTER_PROCESSES.map((p) => ports[p])).toEqual([9000, 9001, 9002, 9003, 9004, 9005, 9006, 9007, 9008, 9009]);
    expect([ports.sequencer, ports['gateway 1'], ports['gateway 2'], ports['realtime 2']]).toEqual([9000, 9006, 9007, 9009]);
    expect(clusterPorts({ ODDEX_PORT: '9000' }, ['--json', '--port', '7000']).sequencer).toBe(7000);
  });

  it('refuses a port that is not a number, or a range past 65535, naming the setting', () => {
    expect(() => clusterPorts({ ODDEX_PORT: 'eighty' }, [])).toThrow(ClusterSettingError);
    expect(() => clusterPorts({ ODDEX_PORT: '65530' }, [])).toThrow(/ODDEX_PORT must be 0 \(free ports\) or the first of 10 ports up to 65535/);
    expect(() => clusterPorts({}, ['--port', '-1'])).toThrow(/--port/);
    expect(clusterPorts({ ODDEX_PORT: '65526' }, [])['realtime 2']).toBe(65535);
  });
});

describe('printed URLs', () => {
  it('never show a password, nor a token in the user part of a URL', () => {
    expect(maskedUrl('postgres://oddex:s3cret@db.example:5432/oddex')).toBe('postgres://oddex:***@db.example:5432/oddex');
    expect(maskedUrl('postgres://oddex:p%40ss@db.example/oddex?sslmode=require')).toBe('postgres://oddex:***@db.example/oddex?sslmode=require');
    expect(maskedUrl('redis://:s3cret@127.0.0.1:6379')).toBe('redis://:***@127.0.0.1:6379');
    expect(maskedUrl('redis://default:s3cret@127.0.0.1:6379/0')).toBe('redis://default:***@127.0.0.1:6379/0');
    expect(maskedUrl('nats://s3crettoken@127.0.0.1:4222')).toBe('nats://***@127.0.0.1:4222');
  });

  it('leave a URL without a password as it is', () => {
    expect(maskedUrl('postgres://postgres@127.0.0.1:5432/oddex')).toBe('postgres://postgres@127.0.0.1:5432/oddex');
    expect(maskedUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(maskedUrl('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
  });
});
