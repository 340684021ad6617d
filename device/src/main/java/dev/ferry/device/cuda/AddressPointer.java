package dev.ferry.device.cuda;

import org.bytedeco.javacpp.Pointer;

/**
 * A JavaCPP pointer at an exact address with position 0, for device addresses computed as
 * base + offset; avoids relying on how {@code position} scales for untyped pointers.
 */
final class AddressPointer
        extends Pointer
{
    AddressPointer(long address)
    {
        this.address = address;
    }
}
