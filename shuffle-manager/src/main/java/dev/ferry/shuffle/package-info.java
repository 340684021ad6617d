/**
 * Ferry's Arrow columnar shuffle: the {@code ShuffleManager}, the columnar exchange and the
 * topology-aware transports. Nothing here yet: the columnar shuffle and transport issues fill it.
 */
package dev.ferry.shuffle;
