import type { Module } from '../module.ts';
import { HOST_BACKOFF_DDL } from './host-backoff.ts';

/**
 * Fetching shop pages safely (the address guard, HTTP, the browser), used by checks, AI Detect and
 * channel deliveries. Its one table: the shops resting after they turned checks away.
 */
export const fetchingModule = {
  name: 'fetching',
  ddl: [HOST_BACKOFF_DDL],
} satisfies Module;
