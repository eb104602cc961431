import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { containerEngineGate } from '../../../src/shared/container-engine-gate.ts';

describe('containerEngineGate', () => {
  it('rules out a DOCKER_HOST socket that does not exist, without asking testcontainers', () => {
    expect(containerEngineGate({ DOCKER_HOST: 'unix:///nonexistent/podman.sock' })).toEqual({
      kind: 'absent',
      reason: 'DOCKER_HOST socket /nonexistent/podman.sock does not exist',
    });
  });

  it('tries a DOCKER_HOST socket that exists, and any tcp DOCKER_HOST', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gate-'));
    const socket = join(dir, 'engine.sock');
    writeFileSync(socket, '');
    try {
      expect(containerEngineGate({ DOCKER_HOST: `unix://${socket}` })).toEqual({
        kind: 'try',
        where: `unix://${socket}`,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(containerEngineGate({ DOCKER_HOST: 'tcp://127.0.0.1:2375' }).kind).toBe('try');
  });

  it('tries the rootless socket under XDG_RUNTIME_DIR when DOCKER_HOST is unset', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gate-'));
    writeFileSync(join(dir, 'docker.sock'), '');
    try {
      expect(containerEngineGate({ XDG_RUNTIME_DIR: dir })).toEqual({
        kind: 'try',
        where: `unix://${dir}/docker.sock`,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
