package org.jiobench.runner;

import java.nio.file.Path;

/**
 * What a run leaves behind.
 *
 * @param results   where the launcher writes the run file
 * @param keep      keep the files the run created
 * @param overwrite write over an existing file, which is then the user's and never removed
 */
record Output(Path results, boolean keep, boolean overwrite) {
}
