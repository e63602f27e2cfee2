package org.jiobench.workloads;

/**
 * The tunables some approaches take.
 *
 * @param bufferSize          bytes of the stream buffer of buffered-data-stream
 * @param calibrateBytesPerSecond the rate calibrate pretends to move, per rank
 */
public record ApproachSettings(int bufferSize, long calibrateBytesPerSecond) {
    public ApproachSettings {
        if (bufferSize <= 0) throw new IllegalArgumentException("buffer size must be positive");
        if (calibrateBytesPerSecond <= 0) throw new IllegalArgumentException("calibrate rate must be positive");
    }
}
