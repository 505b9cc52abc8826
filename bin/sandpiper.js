#!/usr/bin/env node
// Entry point of the `sandpiper` bin: registers the TypeScript loader, then runs the CLI (no build step).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
