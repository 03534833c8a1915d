/** Test support shared by the bus adapters' test suites. Not API. */
package dev.toolbus.bus.testing;
