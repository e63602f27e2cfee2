package org.jiobench.workloads;

/**
 * The classes compiled from src/main/java22 (Maven profile {@code ffm}), which exist only in a
 * build made by a JDK 22 or newer and load only on such a JVM.
 */
final class Java22 {
    private Java22() {
    }

    /** A new instance of the class, or null where this build or JVM has none. */
    static Object instance(String className) {
        if (Runtime.version().feature() < 22) return null;
        try {
            return Class.forName(className).getDeclaredConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            return null;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot make a " + className, e);
        }
    }
}
