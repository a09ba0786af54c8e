/* global obflowBody */
// GET …/payment-details: the payment's status as it moves through the scheme; none of them a rejection.
const notMade = JSON.parse('{{js notMade}}');
const statuses = (((obflowBody() || {}).Data || {}).PaymentStatus || []).map(function (entry) {
  return entry.Status;
});

pm.test('payment-details lists the payment status', function () {
  pm.expect(statuses.length, 'PaymentStatus entries').to.be.above(0);
});
pm.test('no status detail is a rejection', function () {
  pm.expect(
    statuses.filter(function (status) {
      return notMade.indexOf(status) >= 0;
    }),
  ).to.eql([]);
});
