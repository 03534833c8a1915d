/** Spring Boot auto-configuration of toolbus: {@link dev.toolbus.spring.ToolbusAutoConfiguration}. */
package dev.toolbus.spring;
