/**
 * The control messages of Ferry's one-sided READ protocol (block locations with address, length
 * and rkey per segment; errors) and of authentication: one message per file with
 * {@code encodedLength}/{@code encode}/static {@code decode}, byte type ids, length-prefixed frames
 * with a size limit, and a blocking socket channel.
 */
package dev.ferry.transport.protocol;
