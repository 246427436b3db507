// A test assignor (tests/heuristics/test_java_class.py): no public no-arg constructor, so a consumer cannot make one.
package oracletest;

public class NoDefaultConstructor extends Dealer {
    public NoDefaultConstructor(int unused) {
    }
}
