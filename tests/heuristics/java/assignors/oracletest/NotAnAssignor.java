// A test class (tests/heuristics/test_java_class.py): on the classpath, but not a ConsumerPartitionAssignor.
package oracletest;

public class NotAnAssignor {
}
