package dev.ferry.topology.model;

/** Whether a kernel feature is there; UNKNOWN when nothing could tell (e.g. offline from a capture). */
public enum Presence
{
    PRESENT,
    ABSENT,
    UNKNOWN,
}
