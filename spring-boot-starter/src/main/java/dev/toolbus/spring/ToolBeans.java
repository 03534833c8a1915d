package dev.toolbus.spring;

import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.Action;
import dev.toolbus.tool.Tool;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.method.Tools;
import java.lang.reflect.Method;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/** Registers the {@code @Tool} and {@code @Action} methods of every Spring bean as plugin tools. */
final class ToolBeans implements BeanPostProcessor {

    private final ObjectProvider<ToolRegistry> registry;

    ToolBeans(ObjectProvider<ToolRegistry> registry) {
        this.registry = registry;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof ToolRegistry) {
            return bean;
        }
        Class<?> type = AopUtils.getTargetClass(bean);
        if (!hasTools(type)) {
            return bean;
        }
        Object target = AopUtils.isAopProxy(bean) ? AopProxyUtils.getSingletonTarget(bean) : bean;
        if (target == null) {
            throw new IllegalStateException("bean '" + beanName + "' declares @Tool methods behind a proxy whose "
                    + "target cannot be reached; declare the tools on a plain bean");
        }
        registry.getObject().registerAll(Tools.fromObject(target), ToolSource.PLUGIN);
        return bean;
    }

    private static boolean hasTools(Class<?> type) {
        for (Method m : type.getMethods()) {
            if (m.isAnnotationPresent(Tool.class) || m.isAnnotationPresent(Action.class)) {
                return true;
            }
        }
        return false;
    }
}
