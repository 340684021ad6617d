/** Per-route byte and block counters, mergeable across executors, and the per-peer route log. */
package dev.ferry.shuffle.transport.metrics;
