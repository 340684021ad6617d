package dev.ferry.device.contract;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** A contract test: runs once per {@link BackendUnderTest#selected() selected backend}. */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "{0}")
@MethodSource("dev.ferry.device.contract.BackendUnderTest#selected")
public @interface ContractTest
{
}
