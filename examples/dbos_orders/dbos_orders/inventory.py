"""The order workflows: a ``@DBOS.dbos_class`` with step methods, a transaction, a child workflow."""

from __future__ import annotations

from dbos import DBOS, DBOSConfiguredInstance, SQLAlchemyDatasource
from sqlalchemy import text

from .pricing import total_of

orders_db = SQLAlchemyDatasource.create("sqlite:///dbos_orders_app.sqlite")


@orders_db.transaction()
def record_order(order_id: str, amount: float) -> None:
    """A transaction: its body runs once, DBOS serves its recorded outcome on recovery."""
    session = orders_db.sql_session()
    session.execute(text("CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY, amount REAL)"))
    session.execute(text("INSERT OR REPLACE INTO orders VALUES (:id, :amount)"), {"id": order_id, "amount": amount})


@DBOS.workflow()
def ship(order_id: str) -> str:
    """A child workflow: it runs with its own status and steps; a parent records its result."""
    return f"shipped {order_id}"


@DBOS.dbos_class()
class Warehouse(DBOSConfiguredInstance):
    def __init__(self, region: str) -> None:
        self.region = region
        super().__init__(config_name=region)

    @DBOS.step()
    def reserve(self, sku: str, qty: int) -> bool:
        return qty <= 10

    @DBOS.step(retries_allowed=True, max_attempts=3)
    def label(self, order_id: str) -> str:
        return f"{self.region}/{order_id}"

    @DBOS.workflow()
    def checkout(self, order: dict) -> dict:
        if not self.reserve(order["sku"], order["qty"]):
            return {"status": "out-of-stock"}
        amount = total_of(order)
        record_order(order["id"], amount)
        label = self.label(order["id"])
        shipped = ship(order["id"])
        return {"status": "ok", "amount": amount, "label": label, "shipped": shipped}
