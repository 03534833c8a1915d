"""A plugin written with toolbus's Python SDK (tool-sources/hosts/python/toolbus_plugin)."""

from toolbus_plugin import PluginError, run, tool

TEMPERATURES = {"oslo": 4, "paris": 12}


@tool(params={"city": "City name"}, cacheable=True)
def weather_now(city: str) -> dict:
    """Current temperature of a city."""
    if city.lower() not in TEMPERATURES:
        raise PluginError(f"unknown city: {city}")
    return {"city": city, "celsius": TEMPERATURES[city.lower()]}


@tool(description="Greets the user in the chat, then reports what it did.", side_effecting=True)
async def greet_user(ctx, name: str = "there") -> str:
    ok = await ctx.send_text(f"Hello, {name}!")
    return "greeted" if ok else "could not greet"


if __name__ == "__main__":
    run()
